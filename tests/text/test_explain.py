"""explain() writes each cell's derivation with the numbers the user sees."""

import dataclasses
import re

import numpy as np
import pytest

from attn_explorer.engine import compute, explain, preset
from attn_explorer.text.steps import step_text
from attn_explorer.text.titles import array_label, array_symbol, array_title


@pytest.fixture(scope="module")
def v1():
    return compute(preset("v1").config)


def test_score_derivation_matches_the_tutorial(v1):
    text = explain(v1, "scores", 0, 1, 0)
    assert text.startswith("ω[2,1] = q2·k1 = 0.4306×0.3669 + 1.4551×0.7646 = 1.2705")
    assert "“journey”" in text and "“Your”" in text


def test_query_derivation(v1):
    assert explain(v1, "queries", 0, 1, 0).startswith(
        "q2[1] = x2·W_q[:,1] = 0.5500×0.2961 + 0.8700×0.2517 + 0.6600×0.0740 = 0.4306"
    )


def test_scaled_score(v1):
    assert explain(v1, "scaled_scores", 0, 1, 0).startswith(
        "ω̃[2,1] = ω[2,1] / √2 = 1.2705 / 1.4142 = 0.8984"
    )


def test_softmax_fraction(v1):
    text = explain(v1, "weights", 0, 1, 0).replace("\u00a0", " ")  # (no-break spaces)
    assert text.startswith(
        "α[2,1] = exp(ω̃[2,1]) / Σⱼ' exp(ω̃[2,j']) = exp(0.8984) / (exp(0.8984) + exp(1.3098)"
    )
    assert "= 2.4556 / 16.3685 = 0.1500" in text


def test_context_weighted_sum(v1):
    text = explain(v1, "head_contexts", 0, 1, 0).replace("\u00a0", " ")  # (no-break spaces)
    assert text.startswith("z2[1] = Σⱼ α[2,j]·vⱼ[1] = 0.1500×0.1855 + 0.2264×0.3951")
    assert "= 0.3061" in explain(v1, "head_contexts", 0, 1, 0)


def test_the_output_without_projection_is_derived_as_the_context_it_is(v1):
    """With no W_o a hover on the output pointed to Z_cat, which the Matrices tab does not
    show, and gave no sum: the learner saw 0.8210 and nothing of where it came from."""
    lines = explain(v1, "context", 0, 1, 1).replace("\u00a0", " ").splitlines()
    assert lines[0] == "out2[2] = z2[2]: no output projection, the output is Z."
    assert lines[1].startswith("z2[2] = Σⱼ α[2,j]·vⱼ[2] = 0.1500×")
    assert lines[1].endswith("= 0.8210")


def test_an_output_column_of_the_second_head_is_derived_from_that_head():
    wrapper = compute(preset("wrapper").config)
    lines = explain(wrapper, "context", 0, 1, 2).replace("\u00a0", " ").splitlines()
    assert lines[0].startswith("out2[3] = Z_cat[2,3] = z2[1] of head 2: no output projection")
    # SEEDS.md: the wrapper's second row is -0.5874, 0.0058, 0.5891, 0.3257
    assert lines[1].startswith("z2[1] = Σⱼ α[2,j]·vⱼ[1] = ") and lines[1].endswith("= 0.5891")


def test_masked_cells_say_why():
    trace = compute(preset("causal").config)
    assert explain(trace, "mask", 0, 1, 3) == (
        "M[2,4] = True: hidden, because key 4 comes after query 2 (causal mask)."
    )
    # The causal example masks the raw scores first, as tutorial 000 does: ωₘ.
    assert explain(trace, "masked_scores", 0, 1, 3).startswith("ωₘ[2,4] = −∞: hidden, because")
    assert explain(trace, "weights", 0, 1, 3).startswith("α[2,4] = 0: hidden")
    assert "The 4 hidden keys add exp(−∞) = 0" in explain(trace, "weights", 0, 1, 1)


def test_renormalize_method_is_explained_as_method_1():
    trace = compute(preset("causal").config)
    text = explain(trace, "weights_renormalize", 0, 1, 0)
    assert text.startswith("α[2,1] = softmax(ω̃)[2,1] / Σ_visible softmax(ω̃)[2,j'] = ")
    assert text.split("\n")[0].endswith("= 0.5517")


def test_padding_reason():
    trace = compute(preset("padding").config)
    assert "beyond the valid length 4" in explain(trace, "mask", 0, 0, 5)


def test_dropout_cells():
    trace = compute(preset("dropout").config)
    keep = trace.dropout_keep[0]
    i, j = map(int, next(zip(*keep.nonzero(), strict=True)))
    w = trace.weights[0, i, j]
    assert explain(trace, "weights_dropped", 0, i, j).startswith(
        f"α_d[{i + 1},{j + 1}] = α[{i + 1},{j + 1}] × keep / (1 − p) = "
        f"{w:.4f} × 1 / 0.5000 = {2 * w:.4f}"
    )
    assert "multiplied by 1/(1 − p) = 2.0000" in explain(trace, "dropout_keep", 0, i, j)


def test_output_projection_and_heads():
    trace = compute(preset("mha").config)
    text = explain(trace, "context", 0, 0, 0)
    assert text.startswith("out1[1] = Z_cat1·W_o[:,1] + b_o[1] = -0.4519×(-0.1668) + 0.2216×0.2270")
    assert text.endswith("= 0.3190")
    assert explain(trace, "weights", 1, 2, 0).endswith("(head 2 of 2)")
    assert explain(trace, "concat", 0, 1, 1).startswith("Z_cat[2,2] = z2[1] of head 2 = ")


def test_long_sums_are_shortened():
    from attn_explorer.engine import AttentionConfig

    trace = compute(
        AttentionConfig(tokens=("a", "b"), embeddings=[[0.1] * 20, [0.2] * 20], d_out=3)
    )
    assert "(20 terms)" in explain(trace, "queries", 0, 0, 0)


def test_every_array_of_every_preset_explains(v1):
    for name in ("simple", "v1", "dropout", "mha", "cross", "padding"):
        trace = compute(preset(name).config)
        for array in trace.names:
            matrix = trace.matrix(array, 0)
            text = explain(trace, array, 0, matrix.shape[0] - 1, matrix.shape[1] - 1)
            assert text and "nan" not in text.lower()


def test_out_of_range_is_an_error(v1):
    with pytest.raises(IndexError):
        explain(v1, "scores", 0, 6, 0)
    with pytest.raises(IndexError):
        explain(v1, "scores", 1, 0, 0)
    with pytest.raises(KeyError):
        explain(v1, "w_out", 0, 0, 0)


def test_a_negative_term_in_a_sum_is_bracketed_not_added_as_plus_minus():
    trace = compute(preset("wrapper").config)
    assert explain(trace, "scores", 0, 1, 0).startswith(
        "ω[2,1] = q2·k1 = -0.3021×(-0.5740) + (-0.0289)×0.2727 = 0.1655"
    )  # the first term keeps its plain sign
    texts = [explain(trace, "scores", 0, i, j) for i in range(6) for j in range(6)]
    assert not any("+ -" in t for t in texts)


@pytest.mark.parametrize(
    ("heads", "formula"),
    [(1, "Z_cat = Z"), (2, "Z_cat = [Z_1 | Z_2]"), (4, "Z_cat = [Z_1 | … | Z_4]")],
)
def test_the_concatenation_formula_lists_the_heads_there_are(heads, formula):
    from dataclasses import replace

    config = replace(preset("v1").config, num_heads=heads, d_out=2 * heads)
    step = next(s for s in compute(config).steps if s.key == "concat")
    assert step_text(step).formula == formula


def test_cross_attention_names_the_key_value_embedding_apart_from_the_queries():
    trace = compute(preset("cross").config)
    assert explain(trace, "keys", 0, 1, 0).startswith("k2[1] = xₖᵥ2·W_k[:,1] = ")
    assert explain(trace, "queries", 0, 1, 0).startswith("q2[1] = x2·W_q[:,1] = ")
    assert explain(trace, "x_kv", 0, 1, 0).startswith("xₖᵥ2[1] = ")
    assert "key/value token 2" in explain(trace, "x_kv", 0, 1, 0)


def _fraction(text: str) -> tuple[float, float, float]:
    """a, b and c of the first line's closing "… = a / b = c"."""
    parts = text.split("\n")[0].replace("\u00a0", " ").rsplit(" = ", 2)
    a, b = (float(x) for x in parts[1].split(" / "))
    return a, b, float(parts[2])


def test_a_small_divisor_is_written_with_the_digits_its_quotient_needs(v1):
    """T = 0.1 divides by √2 · 0.1 = 0.141421…: as 0.1414 the shown division gave 13.1004, not
    the 13.0983 written after it."""
    trace = compute(dataclasses.replace(v1.config, temperature=0.1))
    text = explain(trace, "scaled_scores", 0, 1, 1)
    assert " / 0.141421" in text  # (and the score with a digit more: 1.8524 / 0.14142 is
    a, b, c = _fraction(text)  # 13.0985, not 13.0983)
    assert f"{a / b:.4f}" == f"{c:.4f}"


@pytest.mark.parametrize(
    ("name", "changes"),
    [
        ("v2", {"seed": 3, "temperature": 0.05}),  # every score negative: exps far below 1
        ("causal", {"temperature": 0.05, "mask_method": "renormalize"}),
        ("causal", {"temperature": 0.03}),
    ],
)
def test_every_softmax_fraction_holds_to_its_shown_digits(name, changes):
    trace = compute(dataclasses.replace(preset(name).config, **changes))
    cfg = trace.config
    for i in range(cfg.n_q):
        for j in range(cfg.n_k):
            text = explain(trace, "weights", 0, i, j)
            if "hidden" in text.split("\n")[0]:
                continue
            a, b, c = _fraction(text)
            assert a / b == pytest.approx(c, abs=1e-4), text.split("\n")[0]


def test_the_context_after_dropout_sums_alpha_d_and_says_it_is_no_average():
    trace = compute(preset("dropout").config)
    text = explain(trace, "head_contexts", 0, 3, 0).replace("\u00a0", " ")
    # Tutorial 000 §3.5.2's row 4 after dropout: 0, 0.4921, 0.4925, 0, 0, 0.
    assert text.startswith(
        "z4[1] = Σⱼ α_d[4,j]·vⱼ[1] = 0.4921×(-0.1137) + 0.4925×(-0.1018) = -0.1061"
    )
    assert "weighted sum of the values (after dropout the weights sum to 0.9846, not 1)" in text
    plain = compute(dataclasses.replace(preset("dropout").config, training=False))
    assert "a weighted average of the values." in explain(plain, "head_contexts", 0, 2, 0)


def test_weights_after_a_dropout_that_does_not_apply_are_alpha():
    """Hovering the context stage's input with p = 0 read "α_d[2,1] = α[2,1]" under a matrix
    that is the softmax weights; they are α, named as the matrix and the stage name them."""
    for config in (
        preset("wrapper").config,  # p = 0
        dataclasses.replace(preset("dropout").config, training=False),
    ):
        trace = compute(config)
        text = explain(trace, "weights_dropped", 0, 1, 0)
        assert text.startswith("α[2,1] = 0.") and "α_d" not in text, text
        assert "no dropout (" in text
        assert array_symbol(trace.config, "weights_dropped") == "α"
        assert "α_d" not in step_text(trace.step("context")).formula
    dropped = compute(preset("dropout").config)
    assert explain(dropped, "weights_dropped", 0, 1, 0).startswith("α_d[2,1] = α[2,1] × keep")
    assert array_title(trace.config, "weights") == "Attention weights"
    assert array_title(dropped.config, "weights_dropped") == "Weights after dropout"
    assert step_text(dropped.step("context")).formula.startswith("Z = α_d·V")  # (one head)


def test_a_dropped_weight_is_written_with_the_four_decimals_of_its_matrix():
    trace = compute(preset("dropout").config)
    # "journey"'s weight for "Your" (0.55168) is dropped: × 0 needs no fifth digit.
    assert explain(trace, "weights_dropped", 0, 1, 0).split("\n")[0] == (
        "α_d[2,1] = α[2,1] × keep / (1 − p) = 0.5517 × 0 / 0.5000 = 0.0000"
    )
    # A kept one keeps 4 decimals where they give the shown result (0.3097 × 2 = 0.6194).
    assert "= 0.3097 × 1 / 0.5000 = 0.6194" in explain(trace, "weights_dropped", 0, 2, 1)


def test_a_causally_hidden_weight_after_dropout_says_it_is_hidden():
    trace = compute(preset("dropout").config)
    assert trace.dropout_keep[0, 1, 3]  # kept by dropout, hidden by the mask
    text = explain(trace, "weights_dropped", 0, 1, 3)
    assert text.startswith("α_d[2,4] = 0: hidden, because key 4 comes after query 2 (causal mask).")
    assert "0.0000 × 1" not in text


@pytest.mark.parametrize(
    ("name", "changes", "scores"),
    [
        ("simple", {}, "ω"),  # not scaled, no mask
        ("v1", {}, "ω̃"),  # scaled, no mask
        ("causal", {"scale": False}, "ωₘ"),  # masked, not scaled
        ("causal", {}, "ω̃ₘ"),
    ],
)
def test_the_softmax_texts_write_the_scores_that_were_computed(name, changes, scores):
    """Preset "simple" hovered "ω̃ₘ[2,1] = ω̃[2,1]" and "exp(ω̃ₘ[2,1])" with neither
    scaling nor a mask; the stage's own formula wrote ω̃ in every config."""
    trace = compute(dataclasses.replace(preset(name).config, **changes))
    text = explain(trace, "weights", 0, 1, 0).replace("\u00a0", " ")
    assert text.startswith(f"α[2,1] = exp({scores}[2,1]) / Σⱼ' exp({scores}[2,j']) = ")
    formula = step_text(trace.step("softmax")).formula
    assert formula.startswith(f"α[i,j] = exp({scores}[i,j]) / Σⱼ' exp({scores}[i,j'])")
    html = scores.replace("ₘ", "<sub>m</sub>")
    assert f"exp({html}[i,j]) / Σ<sub>j'</sub> exp({html}[i,j'])" in (
        step_text(trace.step("softmax")).formula_html
    )
    if scores == "ω":
        assert "ω̃" not in text and "ω̃" not in formula


def test_unmasked_unscaled_scores_fed_to_softmax_are_written_as_omega():
    trace = compute(preset("simple").config)
    text = explain(trace, "masked_scores", 0, 1, 0)
    assert text.startswith("ω[2,1] = q2·k1 = 0.5500×0.4300 + ")
    assert text.endswith("Not scaled, no mask: softmax reads ω as it is.")
    assert "ω̃" not in text
    v1 = compute(preset("v1").config)
    assert explain(v1, "masked_scores", 0, 1, 0) == (
        "ω̃[2,1] = ω[2,1] / √2 = 1.2705 / 1.4142 = 0.8984\nNo mask: softmax reads ω̃ as it is."
    )
    unscaled = compute(dataclasses.replace(preset("causal").config, scale=False))
    assert explain(unscaled, "masked_scores", 0, 1, 3).startswith("ωₘ[2,4] = −∞: hidden")
    mask = step_text(unscaled.step("mask")).formula
    assert mask.startswith("ωₘ[i,j] = −∞ where M[i,j], else ω[i,j]")


def test_the_softmax_line_breaks_only_between_its_terms(v1):
    """It wrapped inside "2.4556 / 16.3685": a space may follow only an "=" or a "+"."""
    line = explain(v1, "weights", 0, 1, 0).split("\n")[0]
    assert "= 2.4556\u00a0/\u00a016.3685\u00a0= 0.1500" in line
    pieces = line.split(" ")
    assert len(pieces) == 9  # lead =, numerator / (6 terms +), fraction =, value
    assert all(piece.endswith(("=", "+")) for piece in pieces[:-1])
    shifted = compute(dataclasses.replace(preset("v1").config, temperature=0.01))
    line = explain(shifted, "weights", 0, 1, 0).split("\n")[0]  # exp(x − max) terms
    assert all(piece.endswith(("=", "+")) for piece in line.split(" ")[:-1])


def _printed_at(text: str) -> tuple[int, int]:
    """The 0-based (row, column) of "shows this value in row r, column c"."""
    import re

    r, c = re.search(r"shows this value in row (\d+), column (\d+)\.", text).groups()
    return int(r) - 1, int(c) - 1


def test_a_w_cell_says_where_print_module_weight_shows_it():
    """W_o was shown as out_proj.weight transposed, with no word: a learner comparing with
    print(mha.out_proj.weight) read [[-0.1668, 0.5000], …] against [[-0.1668, 0.2270], …]."""
    import torch

    from tests.engine import tutorial_modules as tm

    torch.manual_seed(123)
    mha = tm.MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)
    trace = compute(preset("mha").config)
    text = explain(trace, "w_out", 0, 0, 1)
    assert text.startswith("W_o[1,2] = 0.5000\n")
    assert "W_o = out_proj.weightᵀ (nn.Linear stores W transposed): print(out_proj.weight) " in (
        text
    )
    assert _printed_at(text) == (1, 0)
    assert mha.out_proj.weight[1, 0].item() == pytest.approx(0.5000, abs=5e-5)
    # Split heads: head 2's W_q is column 2 of W_query.weightᵀ.
    text = explain(trace, "w_query", 1, 2, 0)
    assert "W_q = column 2 of W_query.weightᵀ" in text
    r, c = _printed_at(text)
    assert mha.W_query.weight[r, c].item() == pytest.approx(float(trace.w_query[1, 2, 0]))
    cross = compute(preset("cross").config)
    assert "W_k = columns 3–4 of W_key.weightᵀ" in explain(cross, "w_key", 1, 0, 1)
    # Stacked heads: each its own nn.Linear.
    wrapper = compute(preset("wrapper").config)
    assert "W_v = head 2's W_value.weightᵀ" in explain(wrapper, "w_value", 1, 0, 0)


def test_torch_rand_weights_are_not_said_to_be_transposed():
    text = explain(compute(preset("v1").config), "w_query", 0, 0, 1)
    assert "transposed" not in text and "weightᵀ" not in text
    assert "torch.rand(d_in, d_out)" in text


def test_the_projection_and_output_stages_say_w_is_the_weight_transposed():
    mha = compute(preset("mha").config)
    assert step_text(mha.step("projections")).formula.endswith(
        "(each W = its nn.Linear's .weightᵀ; head h uses its column h)"
    )
    html = step_text(mha.step("projections")).formula_html
    assert "(each W = its nn.Linear's .weight<sup>T</sup>" in html
    assert "W_o = out_proj.weightᵀ" in step_text(mha.step("out_proj")).formula
    cross = compute(preset("cross").config)
    assert "head h uses its columns 2h−1…2h" in step_text(cross.step("projections")).formula
    v2 = compute(preset("v2").config)
    assert step_text(v2.step("projections")).formula.endswith("(each W = its nn.Linear's .weightᵀ)")
    v1 = compute(preset("v1").config)
    assert "weight" not in step_text(v1.step("projections")).formula


@pytest.mark.parametrize(
    ("changes", "title", "symbol", "array_title"),
    [
        ({}, "4. Scaled scores", "ω̃", "Scaled scores"),
        ({"temperature": 2.0}, "4. Scaled scores", "ω̃", "Scaled scores"),
        (
            {"scale": False, "temperature": 2.0},
            "4. Scores ÷ temperature",
            "ω̃",
            "Scores ÷ temperature",
        ),
        ({"scale": False}, "4. Scaling", "ω", "Scores ω (not scaled)"),
    ],
)
def test_the_scale_stage_says_scaled_only_where_scaling_is_on(changes, title, symbol, array_title):
    """With √d_k scaling off the stage was titled "4. Scaled scores" over a matrix "Scaled
    scores ω̃", its formula "ω̃ = ω" and a cell "ω̃[2,1] = ω[2,1]", while every later stage
    wrote the same scores ω."""
    trace = compute(dataclasses.replace(preset("v2").config, **changes))
    step = step_text(trace.step("scale"))
    assert step.title == title
    info = array_label(trace.config, "scaled_scores")
    assert info == (symbol, array_title)
    cell = explain(trace, "scaled_scores", 0, 1, 0)
    texts = [step.title, step.formula, step.formula_html, info[1], cell]
    if not trace.config.scale:
        assert not any("Scaled" in text or "√d_k =" in text or "/ √" in text for text in texts)
    if symbol == "ω":
        assert step.formula == "ω goes on as it is: it is not divided"
        assert cell.startswith("ω[2,1] = 0.4656\nNot scaled: √d_k scaling is off and T = 1")
        assert not any("ω̃" in text for text in texts)
        unmasked = compute(
            dataclasses.replace(trace.config, causal=True, mask_method="renormalize")
        )
        assert array_label(unmasked.config, "weights_unmasked")[1] == "softmax(ω), every key"
        assert array_symbol(unmasked.config, "weights_zeroed") == "softmax(ω) ⊙ (1 − M)"
    elif changes.get("temperature"):
        assert "T = 2" in step.formula and ("(√d_k · T)" in step.formula) == trace.config.scale
        assert "/ T," in step.formula or "/ (√d_k · T)," in step.formula  # not "/ (T)"


@pytest.mark.parametrize(
    ("name", "changes", "symbol", "title"),
    [
        ("v1", {}, "ω̃", "Scores fed to softmax (no mask)"),
        ("simple", {}, "ω", "Scores fed to softmax (no mask)"),
        ("causal", {"mask_before_scaling": False}, "ω̃ₘ", "Masked scores"),
        ("causal", {}, "ωₘ", "Masked scores"),  # tutorial 000's order: raw scores masked
        ("causal", {"scale": False}, "ωₘ", "Masked scores"),
        (
            "causal",
            {"scale": False, "mask_method": "renormalize"},
            "ω",
            "Unmasked scores (method 1)",
        ),
    ],
)
def test_the_scores_fed_to_softmax_are_named_as_computed(name, changes, symbol, title):
    """They were "Masked scores ω̃ₘ" in every config, and under method 1 ω̃ unscaled too;
    without a mask the mask stage's formula still set scores to −∞."""
    trace = compute(dataclasses.replace(preset(name).config, **changes))
    assert array_label(trace.config, "masked_scores") == (symbol, title)
    step = step_text(trace.step("mask"))
    if not trace.config.has_mask:
        assert (
            step.formula
            == step.formula_html
            == (f"every key is visible: softmax reads {symbol} as it is")
        )
    else:
        assert step.formula.startswith(f"{symbol}[i,j] = −∞" if "ₘ" in symbol else "M[i,j] = 1")


@pytest.mark.parametrize(
    ("changes", "why"), [({}, "p = 0"), ({"dropout": 0.5, "training": False}, "evaluation mode")]
)
def test_a_dropout_that_does_not_apply_writes_no_alpha_d_or_keep_mask(changes, why):
    """Skipped, the stage still wrote "α_d = α ⊙ keep / (1 − p), p = 0.5, 1/(1 − p) = 2" in
    evaluation mode: an α_d that no other text names, and a keep-mask that was not drawn."""
    trace = compute(dataclasses.replace(preset("causal").config, **changes))
    step = trace.step("dropout")
    assert not step.applies
    text = step_text(step)
    assert text.formula == text.formula_html == f"α goes on as it is: nothing is dropped ({why})"
    on = compute(dataclasses.replace(preset("causal").config, dropout=0.5))
    formula = step_text(on.step("dropout")).formula
    assert formula.startswith("α_d = α ⊙ keep / (1 − p),  keep ~ Bernoulli")
    i, j = map(int, np.argwhere(on.dropout_keep[0])[0])
    keep = explain(on, "dropout_keep", 0, i, j)  # "scaled" is what √d_k does to scores
    assert "scaled" not in keep and "kept (probability 1 − p = 0.5)" in keep


def test_one_head_is_not_written_as_heads():
    """With one head the context stage wrote "Z_h = α·V for each head h" under "Context per
    head", the concat stage "Concatenate heads", "Z_cat = [Z_1]" and "Concatenated heads",
    a Z_cat cell "z2[1] of head 1 … hold head 1's context" and a W cell "(dimension of the
    head)"."""
    trace = compute(preset("v1").config)
    context = step_text(trace.step("context"))
    assert context.formula == "Z = α·V  (z_i = Σⱼ α[i,j]·vⱼ)"
    assert array_title(trace.config, "head_contexts") == "Context Z = α·V"
    concat = step_text(trace.step("concat"))
    assert (concat.title, concat.formula) == ("9. Concatenation", "Z_cat = Z")
    assert array_title(trace.config, "concat") == "Z_cat = Z (one head)"
    assert explain(trace, "concat", 0, 1, 0) == "Z_cat[2,1] = z2[1] = 0.3061\nOne head: Z_cat is Z."
    assert "row 1 (input dimension), column 2 (key dimension)." in explain(trace, "w_key", 0, 0, 1)
    texts = [context.formula, context.formula_html, concat.formula, concat.formula_html]
    texts += [array_title(trace.config, name) for name in trace.names]
    texts += [explain(trace, name, 0, 0, 0) for name in trace.names]
    assert not any(re.search(r"heads|head [h\d]|per head", text) for text in texts)
    two = compute(preset("wrapper").config)
    assert step_text(two.step("context")).formula.startswith("Z_h = α·V for each head h  (z_i = Σⱼ")
    assert array_title(two.config, "head_contexts") == "Context per head Z = α·V"
    assert array_title(two.config, "concat") == "Concatenated heads"
    assert step_text(two.step("concat")).title == "9. Concatenate heads"


def test_the_projection_and_output_formulas_write_only_what_is_computed():
    """Without projections the stage's formula read "Q = X·W_q, K = X·W_k, V = X·W_v" (and
    cross-attention's reason "Q = K = V = X"); with biases each projection added the same
    "+ b" where its worked line wrote b_q; with out_proj off "out = Z_cat·W_o + b_o"; and
    an output weight drawn first said it came "after the q/k/v projections"."""
    simple = compute(preset("simple").config)
    assert step_text(simple.step("projections")).formula == "Q = K = V = X"
    cross = compute(dataclasses.replace(preset("cross").config, projection="none", num_heads=1))
    step = step_text(cross.step("projections"))
    assert (step.formula, step.formula_html) == (
        "Q = X,  K = V = X_kv",
        "Q = X, &nbsp; K = V = X<sub>kv</sub>",
    )
    assert step.reason == "No projection (projection 'none'): Q = X, and K = V = X_kv."
    biased = compute(dataclasses.replace(preset("v2").config, qkv_bias=True))
    assert step_text(biased.step("projections")).formula.startswith(
        "Q = X·W_q + b_q,  K = X·W_k + b_k,  V = X·W_v + b_v   ("
    )
    html = step_text(biased.step("projections")).formula_html
    assert "V = X·W<sub>v</sub> + b<sub>v</sub>" in html
    assert step_text(simple.step("out_proj")).formula == "out = Z_cat"
    mha_out = step_text(compute(preset("mha").config).step("out_proj"))
    assert mha_out.formula.startswith("out = Z_cat·W_o + b_o   (W_o = out_proj.weightᵀ")
    first = compute(dataclasses.replace(preset("simple").config, out_proj=True))
    text = explain(first, "w_out", 0, 0, 0)
    assert "q/k/v" not in text and "±0.5774, from torch.manual_seed(123)." in text


@pytest.mark.parametrize(
    ("name", "changes"),
    [
        ("v2", {}),
        ("v2", {"temperature": 0.5}),
        ("v2", {"scale": False, "temperature": 0.5}),
        ("v2", {"temperature": 3.0}),
        ("happy", {}),
        ("cross", {"temperature": 0.7}),
    ],
)
def test_every_scaled_score_division_holds_to_its_shown_digits(name, changes):
    """v2's row 1 wrote "0.0760 / 0.5000 = 0.1521" and "-0.0511 / 1.4142 = -0.0362": the
    score as its matrix rounds it, divided, misses the result written after it. "I am
    happy" wrote "0.31999999 / 1.7321 = 0.1848": the divisor lacked the digit."""
    trace = compute(dataclasses.replace(preset(name).config, **changes))
    cfg = trace.config
    for i in range(cfg.n_q):
        for j in range(cfg.n_k):
            text = explain(trace, "scaled_scores", 0, i, j)
            a, b, c = _fraction(text)
            assert f"{a / b:.4f}" == f"{c:.4f}", text.split("\n")[0]
            assert a == pytest.approx(float(trace.scores[0, i, j]), abs=5e-5)
            assert b == pytest.approx(cfg.scale_divisor, rel=1e-4)
            assert max(len(x.lstrip("-")) for x in text.split(" = ")[2].split(" / ")) <= 10


def test_the_shown_formulas_index_cells_as_their_hovers_do():
    """The figure's formulas wrote ωᵢⱼ = qᵢ · kⱼ and Mᵢⱼ over hovers "ω[2,1] = q2·k1" and
    "M[2,4]", where the softmax and context formulas write α[i,j]."""
    trace = compute(dataclasses.replace(preset("causal").config, mask_method="renormalize"))
    scores = step_text(trace.step("scores"))
    assert scores.formula_html == "ω = Q·K<sup>T</sup>, &nbsp; ω[i,j] = q<sub>i</sub>·k<sub>j</sub>"
    assert scores.formula.startswith("ω[i,j] = q_i·k_j")
    assert explain(trace, "scores", 0, 1, 0).startswith("ω[2,1] = q2·k1 = ")
    assert step_text(trace.step("mask")).formula_html.startswith("M[i,j] = 1 where key j is hidden")
    assert not any("<sub>ij</sub>" in step_text(step).formula_html for step in trace.steps)


@pytest.mark.parametrize(
    "changes",
    [
        {"scale": False, "temperature": 0.5, "valid_len": 4},
        {"causal": True, "mask_method": "renormalize"},
        {"scale": False, "causal": True, "mask_method": "renormalize", "temperature": 0.5},
        {"valid_len": 3, "temperature": 0.3},
        {"seed": 5, "temperature": 0.7, "valid_len": 5},
    ],
)
def test_every_softmax_division_rounds_to_the_weight_written_after_it(changes):
    """Worked by hand, a shown a / b must give the shown weight to its last digit: v2 at
    T = 0.5, padded, wrote "0.24503 / 0.6966 = 0.3517", which is 0.35175…, 0.3518."""
    trace = compute(dataclasses.replace(preset("v2").config, **changes))
    names = ["weights", "weights_unmasked", "weights_neg_inf", "weights_renormalize"]
    for name in (n for n in names if n in trace.arrays):
        for i in range(6):
            for j in range(6):
                first = explain(trace, name, 0, i, j).split("\n")[0]
                if "hidden" in first:
                    continue
                a, b, c = _fraction(first)
                assert abs(a / b - c) <= 0.5e-4 * (1 + 1e-9), f"{name}: {first}"


def test_a_head_of_one_column_is_written_as_one_column():
    """With d_out = heads each head has one column of Z_cat: a hover read "Columns 2–2 hold
    head 2's context"."""
    one = compute(dataclasses.replace(preset("mha").config, d_out=2))
    assert explain(one, "concat", 0, 1, 1).endswith("\nColumn 2 holds head 2's context.")
    two = compute(dataclasses.replace(preset("mha").config, d_out=4))
    assert explain(two, "concat", 0, 1, 3).endswith("\nColumns 3–4 hold head 2's context.")


def test_counts_of_one_key_are_singular():
    """ "The 1 hidden key(s) add", "1 key(s) with weight 0 are left out": a count of one
    says so."""
    trace = compute(preset("causal").config)
    assert "\nThe hidden key adds exp(−∞) = 0 to the sum." in explain(trace, "weights", 0, 4, 1)
    assert "\nThe 2 hidden keys add exp(−∞) = 0" in explain(trace, "weights", 0, 3, 1)
    assert "\n1 key with weight 0 is left out of the sum." in explain(
        trace, "head_contexts", 0, 4, 0
    )
    assert "\n5 keys with weight 0 are left out of the sum." in explain(
        trace, "head_contexts", 0, 0, 0
    )


def test_method_1_rows_with_one_visible_key_or_none_hidden_say_so():
    """Method 1's last causal row hides no key: its hovers said "row 6 now sums to 1.0000,
    not 1" and "the hidden keys had taken 0.0000"; its first row divided "1 visible
    weight(s)"."""
    trace = compute(dataclasses.replace(preset("causal").config, mask_method="renormalize"))
    first = explain(trace, "row_sums", 0, 0, 0)
    assert first.endswith(
        "row 1's one visible weight is divided by this sum, which makes it 1; the 5 hidden "
        "keys had taken 0.8079."
    )
    assert explain(trace, "row_sums", 0, 4, 0).endswith("; the hidden key had taken 0.1585.")
    last = [explain(trace, name, 0, 5, 1) for name in ("weights_unmasked", "weights_zeroed")]
    last.append(explain(trace, "row_sums", 0, 5, 0))
    assert last[0].endswith("none of them is hidden from query 6.")
    assert last[1].endswith(
        "no key of row 6 is hidden, so none of its weights is zeroed; it still sums to 1."
    )
    assert last[2].endswith(
        "its 6 weights already sum to 1 and dividing by the sum changes nothing."
    )
    assert "the 1 hidden one" not in explain(trace, "weights_unmasked", 0, 4, 1)


@pytest.mark.parametrize(
    ("name", "changes"),
    [
        ("mha", {"d_out": 2}),
        ("mha", {"d_out": 2, "causal": True, "mask_method": "renormalize"}),
        ("causal", {"mask_method": "renormalize"}),
        ("padding", {"valid_len": 1, "mask_method": "renormalize"}),
        ("wrapper", {"dropout": 0.5, "training": True}),
    ],
)
def test_no_hover_writes_a_range_of_one_or_a_plural_in_brackets(name, changes):
    """Every cell of every array: no "2–2", no "key(s)", no "1 keys", nothing "had taken
    0.0000" or "sums to 1.0000, not 1"."""
    trace = compute(dataclasses.replace(preset(name).config, **changes))
    bad = re.compile(
        r"\b(\d+)–\1\b|\(s\)|\b1 (keys|weights|hidden keys|hidden ones)\b|"
        r"taken 0\.0000|1\.0000, not 1"
    )
    for array in trace.names:
        per_head = trace.heads if trace.info(array).per_head else 1
        for h in range(per_head):
            rows, cols = trace.matrix(array, h).shape
            for i in range(rows):
                for j in range(cols):
                    text = explain(trace, array, h, i, j)
                    assert not bad.search(text), f"{array}[{h},{i},{j}]: {text}"

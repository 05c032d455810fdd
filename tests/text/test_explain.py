"""explain() writes each cell's derivation with the numbers the user sees."""

import dataclasses

import pytest

from attn_explorer.engine import compute, explain, preset
from attn_explorer.text.steps import step_text
from attn_explorer.text.titles import array_symbol, array_title
from tests.text.derivations import fraction


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


def test_a_small_divisor_is_written_with_the_digits_its_quotient_needs(v1):
    """T = 0.1 divides by √2 · 0.1 = 0.141421…: as 0.1414 the shown division gave 13.1004, not
    the 13.0983 written after it."""
    trace = compute(dataclasses.replace(v1.config, temperature=0.1))
    text = explain(trace, "scaled_scores", 0, 1, 1)
    assert " / 0.141421" in text  # (and the score with a digit more: 1.8524 / 0.14142 is
    a, b, c = fraction(text)  # 13.0985, not 13.0983)
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
            a, b, c = fraction(text)
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

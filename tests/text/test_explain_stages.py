"""explain() and the stages' texts: where a weight is printed, what each stage's title and
formula say was computed, and counts written as the numbers the user sees."""

import dataclasses
import re

import numpy as np
import pytest

from attn_explorer.engine import compute, explain, preset
from attn_explorer.text.steps import step_text
from attn_explorer.text.titles import array_label, array_symbol, array_title
from tests.text.derivations import fraction


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
            a, b, c = fraction(text)
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
                a, b, c = fraction(first)
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

"""What the step-through writes of the followed query at each stage: its row marked, its
worked lines, the weights and symbols named as the stage computed them."""

import numpy as np
import pytest

from attn_explorer.engine import ARRAY_INFO, compute
from tests.ui.steps.conftest import load


def highlighted_rows(steps) -> set[int | None]:
    rows = set()
    for plot in steps.figure.plots:
        if ARRAY_INFO[plot.shown.name].rows == "q_tokens":
            rows.add(plot._row_box.rect().top() if plot._row_box.isVisible() else None)
    return rows


def test_followed_token_defaults_to_the_second_and_is_written_out(steps):
    steps.set_stage("scores")
    assert steps.query == 1
    assert highlighted_rows(steps) == {1}
    assert steps.followed.text().startswith("Following query 2 “journey”:")
    steps.set_stage("softmax")
    assert "α2 = softmax(ω̃ₘ2) = [0.4833, 0.5167, 0.0000" in steps.followed.text()
    assert "Σ α2 = 1.0000" in steps.followed.text()


@pytest.mark.parametrize(
    ("name", "training", "alpha", "alpha_html", "title"),
    [
        ("wrapper", True, "α", "α", "Weights (no dropout)"),  # p = 0
        ("dropout", False, "α", "α", "Weights (no dropout)"),  # p = 0.5, eval
        ("dropout", True, "α_d", "α<sub>d</sub>", "Weights after dropout"),
    ],
)
def test_the_context_stage_names_the_weights_it_reads_one_way(
    window, wait_settled, steps, name, training, alpha, alpha_html, title
):
    """With dropout greyed out (p = 0) the context stage read "Weights after dropout" over
    its input and "z2 = Σ_j α_d[2,j]·v_j" above "z2[1] = Σ_j α[2,j]·v_j[1]": the plain
    weights are named as such, the dropped ones as α_d, everywhere on the stage. And the
    worked lines write the sum as the formula does: Σⱼ and vⱼ, not Σ_j beside its Σⱼ, and
    α[i,j], not αᵢⱼ; the title α·V, not A·V."""
    load(window, wait_settled, name)
    if not training:
        window.doc.set_control("training", False)
        wait_settled(window)
    steps.set_stage("context")
    weights = steps.figure.plots[0]
    assert weights.shown.name == "weights_dropped"
    assert weights.title.text.startswith(f"<b>{title}</b>")
    assert f"Context Z = {alpha}·V" in steps.figure.title.text
    formula = steps.figure.formula.text
    if window.trace.heads > 1:
        assert formula.startswith(f"Z<sub>h</sub> = {alpha_html}·V for each head h &nbsp; (")
    else:
        assert formula.startswith(f"Z = {alpha_html}·V &nbsp; (")
    assert f"Σ<sub>j</sub> {alpha_html}[i,j]·v<sub>j</sub>)" in formula
    lines = steps.followed.text().replace("\u00a0", " ").split("\n")
    n = steps.query + 1  # (the dropout example follows “starts”)
    assert lines[1].startswith(f"z{n} = Σⱼ {alpha}[{n},j]·vⱼ = [")
    assert lines[2].startswith(f"z{n}[1] = Σⱼ {alpha}[{n},j]·vⱼ[1] = ")
    assert "Σ_j" not in steps.followed.text()
    steps.set_stage("dropout")  # the stage's own output, greyed out or not, is named alike
    assert steps.figure.plots[-1].title.text.startswith(f"<b>{title}</b>")
    assert steps.followed.text().split("\n")[-1].startswith(f"{alpha}{n} = [")


def test_clicking_a_row_follows_it_across_stages_and_changes(window, wait_settled, steps):
    steps.set_stage("scores")
    scores = steps.figure.plots[-1]
    scores.cellClicked.emit(4, 0)
    assert steps.query == 4 and window.doc.view.query == 4
    assert highlighted_rows(steps) == {4}
    steps.set_stage("context")
    assert highlighted_rows(steps) == {4}
    assert steps.followed.text().startswith("Following query 5 “one”:")
    window.controls.seed.spin.setValue(7)
    wait_settled(window)
    assert highlighted_rows(steps) == {4}
    assert window.board.views["weights"].plot._row_box.rect().top() == 4
    expected = compute(window.doc.config()).head_contexts[0, 4]
    assert f"{expected[0]:.4f}" in steps.followed.text()


def test_moving_a_control_redraws_the_current_stage(window, wait_settled, steps):
    steps.set_stage("scale")
    window.controls.temperature.spin.setValue(2.0)
    wait_settled(window)
    trace = compute(window.doc.config())
    np.testing.assert_array_equal(steps.figure.plots[-1].matrix, trace.scaled_scores[0])
    assert "T = 2" in steps.figure.formula.text


def test_a_step_that_changes_one_quantity_draws_before_and_after_on_one_scale(
    window, wait_settled, steps
):
    """On their own scales the scores and the scores divided by √2 get the same colours; on
    one scale the scaled scores are visibly paler, as the lesson says."""
    load(window, wait_settled, "v1")
    steps.set_stage("scale")
    before, after = steps.figure.plots
    # The largest score is 1.8524 (colour bar ±2); alone, the scaled 1.3098 would get ±1.5.
    assert before.levels == after.levels == (-2.0, 2.0)
    largest = np.unravel_index(np.argmax(before.matrix), before.matrix.shape)
    assert after.image.image[largest] != before.image.image[largest]

    load(window, wait_settled, "causal")
    steps.set_stage("mask")
    scaled, _mask, masked = steps.figure.plots
    assert scaled.levels == masked.levels
    visible = ~window.trace.mask  # the mask changes nothing but the hidden cells
    np.testing.assert_array_equal(masked.image.image[visible], scaled.image.image[visible])

    load(window, wait_settled, "dropout")  # p = 0.5: kept weights are doubled, up to 2.00
    steps.set_stage("dropout")
    weights, keep, dropped = steps.figure.plots
    assert weights.levels == dropped.levels == (0.0, 2.0)
    assert keep.levels == (0.0, 1.0)

    steps.set_stage("softmax")  # scores in, weights out: two quantities, two scales
    masked, weights = steps.figure.plots
    assert masked.levels[0] < 0 == weights.levels[0]


def test_concatenation_keeps_every_value_in_its_colour(window, wait_settled, steps):
    """Concatenating only moves the heads' values side by side: 0.1660 was deep red in
    "Z head 1" (±0.2) and pale in the concatenated heads (±0.6)."""
    load(window, wait_settled, "mha")
    steps.set_stage("concat")
    *heads, concat = steps.figure.plots
    assert len(heads) == window.trace.heads
    for head, plot in enumerate(heads):
        assert plot.levels == concat.levels
        width = plot.matrix.shape[1]
        np.testing.assert_array_equal(
            plot.image.image, concat.image.image[:, head * width : (head + 1) * width]
        )


def test_a_weight_doubled_by_dropout_stays_on_the_colour_bar(window, wait_settled, steps):
    """With a few dozen weights the 99.5th percentile falls between the two largest: the bar
    ended at 1 while a kept weight was 1.0335, drawn beyond its end."""
    load(window, wait_settled, "dropout")
    window.controls.heads.spin.setValue(2)
    wait_settled(window)
    steps.set_stage("dropout")
    _weights, _keep, dropped = steps.figure.plots
    assert float(np.nanmax(dropped.matrix)) > 1
    assert dropped.levels[1] >= float(np.nanmax(dropped.matrix))


def test_the_followed_projection_writes_what_was_computed(window, wait_settled, steps):
    load(window, wait_settled, "simple")  # no projection: Q = K = V = X, there is no W_q
    steps.set_stage("projections")
    lines = steps.followed.text().split("\n")
    assert lines[1] == "q2 = k2 = v2 = x2 = [0.5500, 0.8700, 0.6600]"
    assert "W_q" not in steps.followed.text()
    window.controls.projection.setCurrentIndex(window.controls.projection.findData("linear"))
    window.controls.qkv_bias.setChecked(True)
    wait_settled(window)
    lines = steps.followed.text().split("\n")
    q = window.trace.queries[0, 1]
    assert lines[1] == f"q2 = x2·W_q + b_q = [{q[0]:.4f}, {q[1]:.4f}]"
    assert lines[2].startswith("k2 = x2·W_k + b_k = [")
    assert lines[4].startswith("q2[1] = x2·W_q[:,1] + b_q[1] = ")
    steps.followed.label.adjustSize()
    assert steps.followed.verticalScrollBar().maximum() == 0  # all five lines in sight


def test_the_concat_stage_names_no_single_head(window, wait_settled, steps):
    load(window, wait_settled, "mha")
    steps.set_stage("concat")
    assert steps.followed.text().startswith("Following query 2 “journey”:\n")
    steps.set_stage("context")
    assert steps.followed.text().startswith("Following query 2 “journey”, head 1:")


def test_the_followed_query_writes_omega_where_nothing_was_scaled_or_masked(
    window, wait_settled, steps
):
    """Preset "simple" wrote "α2 = softmax(ω̃ₘ2)" and "ω̃ₘ2 = […]" with no scaling and no
    mask: the symbols of stages that were skipped."""
    load(window, wait_settled, "simple")
    steps.set_stage("mask")
    assert steps.followed.text().split("\n")[-1] == (
        "ω2 = [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]   "
        "(no mask: softmax reads it as it is)"
    )
    steps.set_stage("softmax")
    text = steps.followed.text().replace("\u00a0", " ")
    assert "α2 = softmax(ω2) = [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]" in text
    assert "α[2,1] = exp(ω[2,1]) / Σⱼ' exp(ω[2,j']) = " in text
    assert "ω̃" not in text and "ω̃" not in steps.figure.formula.text


def test_the_softmax_worked_line_wraps_between_terms_only(window, wait_settled, steps):
    """v1's line wrapped inside "2.4556 / 16.3685"; the panel's own layout breaks it only
    after an "=" or a "+", at any width."""
    from PySide6.QtGui import QTextLayout, QTextOption

    load(window, wait_settled, "v1")
    steps.set_stage("softmax")
    line = steps.followed.text().split("\n")[-1]
    assert "2.4556\u00a0/\u00a016.3685" in line
    for width in (300, 450, 600, 750, 900):
        layout = QTextLayout(line, steps.followed.label.font())
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WordWrap)
        layout.setTextOption(option)
        layout.beginLayout()
        ends = []
        while (row := layout.createLine()).isValid():
            row.setLineWidth(width)
            ends.append(row.textStart() + row.textLength())
        layout.endLayout()
        for end in ends[:-1]:
            assert line[:end].rstrip().endswith(("=", "+")), (width, line[:end])


def test_the_keep_line_puts_keys_hidden_by_the_mask_in_parentheses(window, wait_settled, steps):
    """ "keep3 = [1, 1, 1, 1, 0, 1]" under a figure hatching keys 4–6 read as "with and step
    are kept"; the draw is still shown, as torch makes it."""
    load(window, wait_settled, "dropout")  # follows query 3, "starts"
    steps.set_stage("dropout")
    lines = steps.followed.text().splitlines()
    assert lines[1] == (
        "keep3 = [1, 1, 1, (1), (0), (1)]   "
        "(0 = dropped; in parentheses: hidden by the mask, 0 either way)"
    )
    window.controls.causal.setChecked(False)
    wait_settled(window)
    assert steps.followed.text().splitlines()[1] == "keep3 = [1, 1, 1, 1, 0, 1]   (0 = dropped)"


def test_the_scale_stage_without_scaling_says_nothing_was_scaled(window, wait_settled, steps):
    """With scaling off (T = 1) the stage read "4. Scaled scores (skipped)" over "Scaled
    scores" and "ω̃2 = […]", "ω̃[2,1] = ω[2,1] = 0.4656": scaled scores that were not."""
    load(window, wait_settled, "v2")
    window.doc.set_control("scale", False)
    wait_settled(window)
    steps.set_stage("scale")
    assert "<b>4. Scaling</b>" in steps.figure.title.text
    assert steps.figure.plots[-1].title.text.startswith("<b>Scores ω (not scaled)</b>")
    text = steps.followed.text()
    assert text.split("\n")[1:] == [
        "ω2 = [0.4656, 0.1723, 0.1751, 0.0259, 0.1771, 0.0085]   (not scaled: it goes on as it is)"
    ]
    steps.set_stage("mask")  # the next stage reads the same scores, by the same name
    assert steps.figure.plots[0].title.text.startswith("<b>Scores ω (not scaled)</b>")
    shown = [steps.figure.title.text, steps.figure.formula.text, text]
    shown += [plot.title.text for plot in steps.figure.plots]
    assert not any("ω̃" in t or "Scaled" in t for t in shown)


def test_the_mask_stage_without_a_mask_hides_nothing_and_sets_no_minus_infinity(
    window, wait_settled, steps
):
    """v2 has no mask: its stage wrote "ω̃ₘ[i,j] = −∞ where M[i,j]" and "M2 = [0, …]
    (1 = hidden)", for a mask that hides nothing."""
    load(window, wait_settled, "v2")
    steps.set_stage("mask")
    assert steps.figure.formula.text == "every key is visible: softmax reads ω̃ as it is"
    assert (
        steps.followed.text().split("\n")[1] == "M2 = [0, 0, 0, 0, 0, 0]   (every key is visible)"
    )
    assert steps.figure.plots[-1].title.text.startswith("<b>Scores fed to softmax (no mask)</b>")


def test_one_head_is_followed_without_heads(window, wait_settled, steps):
    """The default example has one head: "Z_cat2 = [z2 of head 1]" and "Context per head"."""
    steps.set_stage("concat")
    assert steps.followed.text().split("\n")[1:] == ["Z_cat2 = z2 = [-0.5874, 0.0058]"]
    titles = [plot.title.text for plot in steps.figure.plots]
    assert titles[0].startswith("<b>Context Z = α·V</b>")
    assert titles[1].startswith("<b>Z_cat = Z (one head)</b>")
    assert "<b>9. Concatenation</b>" in steps.figure.title.text


def shown_marks(plot) -> dict[int, str]:
    """The texts written in a bar chart, by the key (bar position) they stand at."""
    return {
        round(item.pos().x()): item.textItem.toPlainText()
        for item in plot.marks
        if item.isVisible()
    }


def test_a_masked_key_reads_minus_infinity_not_a_score_of_0(window, wait_settled, steps):
    """A causal row's hidden keys had no bar and no word: "starts" looked like a score of 0,
    the misconception the tutorial argues against (masking is not setting scores to 0)."""
    load(window, wait_settled, "causal")
    steps.set_stage("softmax")
    panel = steps.softmax_panel
    # Row 2 "journey" sees "Your" and itself; "starts" … "step" are masked.
    assert panel.score_plot.bars.opts["x"].tolist() == [0, 1]  # still no bar for them
    assert shown_marks(panel.score_plot) == {2: "−∞", 3: "−∞", 4: "−∞", 5: "−∞"}
    assert shown_marks(panel.weight_plot) == {2: "0", 3: "0", 4: "0", 5: "0"}
    assert shown_marks(panel.sweep_plot) == {2: "0", 3: "0", 4: "0", 5: "0"}
    assert panel.masked_note.isVisible()
    assert panel.masked_note.text().startswith("−∞: a masked key, not a score of 0.")
    # Row 6 "step" sees every key: nothing is marked, and the note goes.
    window._query_chosen(5)
    assert shown_marks(panel.score_plot) == {} and shown_marks(panel.weight_plot) == {}
    assert not panel.masked_note.isVisible()
    # Without a mask a weight may be small, never marked 0 as if masked.
    window._query_chosen(1)
    window.controls.causal.setChecked(False)
    wait_settled(window)
    assert shown_marks(panel.score_plot) == {} and shown_marks(panel.weight_plot) == {}


def test_method_1_marks_its_zeroed_weights_and_no_minus_infinity(window, wait_settled, steps):
    load(window, wait_settled, "causal")
    window.doc.set_control("mask_method", "renormalize")
    wait_settled(window)
    steps.set_stage("softmax")
    panel = steps.softmax_panel
    assert shown_marks(panel.score_plot) == {}  # method 1 feeds softmax the scores: grey bars
    assert shown_marks(panel.weight_plot) == {2: "0", 3: "0", 4: "0", 5: "0"}
    assert not panel.masked_note.isVisible()

"""The step-through: stages, skips, keyboard, the followed token, the softmax and mask panels."""

import math

import numpy as np
import pytest
from PySide6.QtCore import QRectF, Qt

from attn_explorer.engine import ARRAY_INFO, STEP_KEYS, compute, preset
from attn_explorer.model.state import ExplorerState
from attn_explorer.text.steps import step_text
from attn_explorer.ui.steps.room import MATRIX_ROW_MIN_HEIGHT
from attn_explorer.ui.steps.stage_panels import stage_panels
from attn_explorer.ui.text_size import text_size
from tests.ui.conftest import example_lesson


def load(window, wait_settled, name):
    window.load_preset(name)
    wait_settled(window)


@pytest.mark.parametrize("name", ["mha", "dropout", "cross", "padding", "simple"])
def test_every_stage_shows_the_trace_arrays(window, wait_settled, steps, name):
    load(window, wait_settled, name)
    trace = compute(window.doc.config())
    for key in STEP_KEYS:
        steps.set_stage(key)
        panels = stage_panels(trace, key, steps.head)
        assert len(steps.figure.plots) == len(panels) > 0
        for plot, panel in zip(steps.figure.plots, panels, strict=True):
            assert plot.shown.name == panel.name
            expected = trace.matrix(panel.name, panel.head)
            np.testing.assert_array_equal(plot.matrix, expected.astype(plot.matrix.dtype))
        assert steps.figure.formula.text == step_text(trace.step(key)).formula_html


def test_revisiting_stages_reuses_the_plots(window, wait_settled, steps):
    """Stage figures draw on a pool of plots: none are built on a second pass, none leak."""
    load(window, wait_settled, "mha")
    for key in STEP_KEYS:
        steps.set_stage(key)
    pool = list(steps.figure._pool)
    for key in reversed(STEP_KEYS):
        steps.set_stage(key)
        assert all(plot in pool for plot in steps.figure.plots)
    assert steps.figure._pool == pool
    steps.set_stage("scale")  # two matrices: the rest of the pool must let go of its arrays
    unplaced = [p for p in pool if p not in steps.figure.plots]
    assert unplaced and all(p.matrix is None and p.hidden is None for p in unplaced)


def test_stage_shapes_are_in_the_titles(window, steps):
    steps.set_stage("scores")
    titles = [plot.title.text for plot in steps.figure.plots]
    assert "Queries Q" in titles[0] and "6×2" in titles[0]
    assert "6×6" in titles[-1]


@pytest.mark.parametrize(
    ("name", "changes", "skips"),
    [
        ("causal-class", {}, {"dropout", "concat", "out_proj"}),
        ("simple", {}, {"projections", "scale", "mask", "dropout", "concat", "out_proj"}),
        ("mha", {}, {"dropout"}),
        ("dropout", {"training": False}, {"dropout", "concat", "out_proj"}),
        ("padding", {"scale": False}, {"scale", "dropout", "concat", "out_proj"}),
    ],
)
def test_skipped_stages_are_marked_with_their_reason(
    window, wait_settled, steps, name, changes, skips
):
    state = ExplorerState.from_config(preset(name).config).with_controls(**changes)
    window.doc.load_state(state, "test")
    wait_settled(window)
    grey = {
        key
        for row, key in enumerate(STEP_KEYS)
        if steps.stages.tabTextColor(row).name() == "#a0a0a0"
    }
    assert grey == skips
    for key in skips:
        steps.set_stage(key)
        reason = step_text(window.trace.step(key)).reason
        assert reason and steps.figure.reason.text == reason
        assert reason in steps.stages.tabToolTip(STEP_KEYS.index(key))
        assert "skipped" in steps.figure.title.text


def test_arrow_keys_and_buttons_navigate(steps, qtbot):
    steps.set_stage("embeddings")
    steps.stages.setFocus()
    qtbot.keyClick(steps.stages, Qt.Key.Key_Right)
    assert steps.stage == "projections"
    qtbot.keyClick(steps.figure_view, Qt.Key.Key_Right)
    assert steps.stage == "scores"
    qtbot.keyClick(steps.figure_view, Qt.Key.Key_Left)
    assert steps.stage == "projections"
    steps.next_button.click()
    assert steps.stage == "scores"
    steps.prev_button.click()
    steps.prev_button.click()
    assert steps.stage == "embeddings" and not steps.prev_button.isEnabled()


def test_play_walks_through_the_stages_that_apply_and_stops(steps, qtbot):
    steps.timer.setInterval(10)
    applying = [s.key for s in steps.trace.steps if s.applies]
    assert len(applying) < len(STEP_KEYS)  # the default example skips some (no mask, ...)
    visited = []
    steps.stageChanged.connect(visited.append)
    steps.set_stage(applying[-1])
    visited.clear()
    steps.play_button.click()  # from the last stage that applies: start again
    # (seven stages drawn and painted: 1.3 s on a quiet machine, 3.5 s at a load of 7)
    qtbot.waitUntil(lambda: not steps.play_button.isChecked(), timeout=10_000)
    assert applying[0] == "embeddings" and visited == applying
    assert steps.play_button.text() == "▶ Play"


def test_space_plays_and_pauses(steps, qtbot):
    steps.set_stage("embeddings")
    steps.stages.setFocus()
    qtbot.keyClick(steps.stages, Qt.Key.Key_Space)
    assert steps.play_button.isChecked() and steps.timer.isActive()
    qtbot.keyClick(steps.stages, Qt.Key.Key_Space)
    assert not steps.play_button.isChecked() and not steps.timer.isActive()
    assert steps.stage == "embeddings"


def test_a_focused_button_or_slider_keeps_space_and_the_arrows(window, steps, qtbot):
    """The step-through's Space, ← and → took the keys from its own widgets: Space on Next
    started Play, → on the k slider changed the stage instead of k."""
    window.activateWindow()
    steps.set_stage("softmax")
    steps.next_button.setFocus()
    qtbot.waitUntil(steps.next_button.hasFocus)
    qtbot.keyClick(steps.next_button, Qt.Key.Key_Space)
    assert steps.stage == "dropout" and not steps.play_button.isChecked()
    steps.set_stage("softmax")
    slider = steps.softmax_panel.factor.slider
    slider.setFocus()
    qtbot.waitUntil(slider.hasFocus)
    before = slider.value()
    qtbot.keyClick(slider, Qt.Key.Key_Right)
    assert steps.stage == "softmax" and slider.value() == before + slider.singleStep()
    steps.stages.setFocus()  # elsewhere in the step-through, the keys still walk the stages
    qtbot.keyClick(steps.stages, Qt.Key.Key_Right)
    assert steps.stage == "dropout"


def test_a_focused_head_box_keeps_space_and_the_arrows(window, wait_settled, steps, qtbot):
    """Space on the step-through's head box started Play instead of opening its list."""
    window.load_preset("wrapper")
    wait_settled(window)
    window.activateWindow()
    steps.set_stage("softmax")
    steps.head_box.setFocus()
    qtbot.waitUntil(steps.head_box.hasFocus)
    qtbot.keyClick(steps.head_box, Qt.Key.Key_Down)
    assert steps.head_box.currentIndex() == 1 and steps.stage == "softmax"
    qtbot.keyClick(steps.head_box, Qt.Key.Key_Space)
    assert not steps.play_button.isChecked()
    assert steps.head_box.view().isVisible()
    steps.head_box.hidePopup()


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


def test_softmax_panel_numbers(window, wait_settled, steps):
    load(window, wait_settled, "v1")
    steps.set_stage("softmax")
    panel = steps.softmax_panel
    assert steps.extras.isVisible() and steps.extras.currentWidget() is panel
    weights = np.array([0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820])
    by_hand = -sum(p * math.log(p) for p in weights)
    np.testing.assert_allclose(panel.sweep_weights, weights, atol=1e-4)
    assert panel.sweep_entropy == pytest.approx(by_hand, abs=1e-3)
    assert f"H = {panel.sweep_entropy:.4f} nats" in panel.entropy_text.text()
    panel.factor.setValue(100.0)
    panel.factor.valueChanged.emit(100.0)
    # Sharpened toward one-hot on the largest score (journey's own key, 1.3098 before scaling).
    assert panel.sweep_weights.argmax() == 1 and panel.sweep_weights.max() > 0.9
    assert panel.sweep_entropy < by_hand / 5


def test_why_scaling_demo_is_one_undo_step(window, wait_settled, steps):
    # From any seed and row: at seed 42, row 4, the demo once showed no row above 0.65.
    window.controls.seed.spin.setValue(42)
    window._query_chosen(3)
    wait_settled(window)
    steps.set_stage("softmax")
    before = window.doc.state()
    steps.softmax_panel.why.click()
    wait_settled(window)
    cfg = window.trace.config
    assert (cfg.n_q, cfg.d_in, cfg.d_out, cfg.scale, cfg.causal) == (8, 16, 64, False, False)
    assert steps.query == 1 and window.trace.weights[0, 1].max() == pytest.approx(0.966, abs=1e-3)
    assert "softmax saturates." in window.statusBar().currentMessage()
    unscaled = steps.softmax_panel.sweep_entropy
    assert unscaled < 0.5 * math.log(8)  # saturated: far from uniform over 8 keys
    window.controls.scale.setChecked(True)
    wait_settled(window)
    assert steps.softmax_panel.sweep_entropy > 2 * unscaled  # √d_k spreads the weights again
    assert window.trace.weights[0, 1].max() == pytest.approx(0.232, abs=1e-3)
    window.doc.undo_stack.undo()
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert window.doc.state() == before


def test_mask_methods_side_by_side(window, wait_settled, steps):
    steps.set_stage("mask")
    panel = steps.mask_panel
    assert steps.extras.currentWidget() is panel
    trace = window.trace
    np.testing.assert_array_equal(panel.method1.matrix, trace.weights_renormalize[0])
    np.testing.assert_array_equal(panel.method2.matrix, trace.weights_neg_inf[0])
    assert panel.largest < 1e-6
    assert f"{panel.largest:.3g}" in panel.difference.text()
    window.controls.causal.setChecked(False)
    wait_settled(window)
    assert not steps.extras.isVisible()


def test_the_mask_comparison_says_when_method_1_breaks_down(window, wait_settled, steps):
    """Every visible weight of a row underflowed: the panel said "nan (float32 rounding:
    they agree)"."""
    from attn_explorer.model.state import ExplorerState, TokenSequence

    tokens = TokenSequence(("a", "b", "c"), ((1.0, 0.0), (0.0, 1.0), (5.0, 5.0)))
    state = ExplorerState(queries=tokens, kv=None, controls=window.doc.controls)
    state = state.with_controls(projection="none", causal=True, scale=False, temperature=0.01)
    window.doc.load_state(state, "cold")
    wait_settled(window)
    steps.set_stage("mask")
    text = steps.mask_panel.difference.text()
    assert text.startswith("Method 1 breaks down on rows 1, 2:") and "nan" not in text
    # Wrapped: on one line the sentence made the panel, and the window, 1,253 px wide.
    assert steps.mask_panel.minimumSizeHint().width() <= 960


def test_method_1_broken_on_every_row_is_said_without_a_numpy_warning(
    window, wait_settled, steps, recwarn
):
    """Every row of method 1 divided 0 by 0: numpy warned 'All-NaN slice encountered' on the
    console while the panel wrote its sentence."""
    from attn_explorer.model.state import ExplorerState, TokenSequence

    tokens = TokenSequence(("a", "b", "c"), ((1.0, 0.0), (5.0, 0.0), (5.0, 0.0)))
    state = ExplorerState(queries=tokens, kv=None, controls=window.doc.controls)
    state = state.with_controls(
        projection="none", causal=False, padding=True, valid_len=1, scale=False, temperature=0.01
    )
    window.doc.load_state(state, "cold")
    wait_settled(window)
    steps.set_stage("mask")
    text = steps.mask_panel.difference.text()
    assert text.startswith("Method 1 breaks down on rows 1, 2, 3:")
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_a_laptop_window_shows_all_stage_names_and_gives_the_matrices_room(window, steps, qtbot):
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    steps.set_stage("softmax")
    qtbot.wait(50)
    bar = steps.stages
    metrics = bar.fontMetrics()
    for index in range(bar.count()):
        assert bar.tabRect(index).right() <= bar.width()
        assert bar.tabRect(index).width() > metrics.horizontalAdvance(bar.tabText(index))
    assert steps.extras.isVisible()
    assert steps.extras.height() <= steps.height() // 3
    assert steps.figure_view.height() > steps.extras.height()


@pytest.mark.parametrize("stage", ["softmax", "mask"])
def test_a_short_window_gives_the_matrices_room_first(
    window, wait_settled, steps, qtbot, stage, normal_size
):
    """At 1080p and 200 % (960 × 540 logical pixels) the softmax bars ran into their slider
    and text, and the stage's matrices were a line of labels: now the bars give way."""
    load(window, wait_settled, "causal")
    steps.set_stage(stage)
    window.resize(960, 540)
    # While the panel is shown it counts in the window's least height, which may stop this
    # first resize short of 540 px; once it gives way the window goes down as far as its
    # least height lets it, as it does when the learner drags its edge on.
    qtbot.waitUntil(lambda: not steps.extras.isVisible())
    window.resize(960, 540)
    least = max(540, window.layout().totalMinimumSize().height())
    qtbot.waitUntil(lambda: window.height() <= least and not steps.extras.isVisible())
    assert steps.figure_view.height() >= 200
    window.resize(960, 800)  # room for both: the panel comes back, at its full height
    qtbot.waitUntil(lambda: steps.extras.isVisible())
    qtbot.wait(20)
    assert steps.extras.height() >= steps.extras.currentWidget().minimumSizeHint().height()
    assert steps.figure_view.height() >= steps.figure_need()


def matrix_heights(steps) -> list[float]:
    return [plot.geometry().height() for plot in steps.figure.plots]


@pytest.mark.parametrize("stage", ["softmax", "mask"])
def test_a_small_window_keeps_the_stage_matrices_not_the_panel(
    window, wait_settled, steps, qtbot, stage
):
    """At 1024 × 700 the title and formula took most of the 200 px kept for the figure: the
    scores and weights were strips 8–40 px tall without numbers, beside a full-size panel."""
    load(window, wait_settled, "causal")
    steps.set_stage(stage)
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.height() == 700 and not steps.extras.isVisible())
    qtbot.wait(20)
    assert min(matrix_heights(steps)) >= MATRIX_ROW_MIN_HEIGHT
    left_out = {  # and it says so: at 150 % text the panel went without a word
        "softmax": "The softmax bars, the sharpening slider and “Why √d_k?” (also in the",
        "mask": "The comparison of the two masking methods needs more height",
    }[stage]
    assert steps.extras_left_out.isVisible()
    assert steps.extras_left_out.text().startswith(left_out)
    window.resize(1366, 768)  # a laptop: both fit
    qtbot.waitUntil(lambda: steps.extras.isVisible())
    qtbot.wait(20)
    assert not steps.extras_left_out.isVisible()
    assert min(matrix_heights(steps)) >= MATRIX_ROW_MIN_HEIGHT
    assert steps.figure_view.height() >= steps.figure_need()


def test_a_projector_at_200_percent_keeps_the_stage_matrices_legible(
    window, wait_settled, steps, qtbot, normal_size
):
    """A 1080p projector at 200 % text: the softmax bars kept 150 px though their titles and
    labels doubled (they ran into the slider), and the matrices were 8–40 px strips."""
    load(window, wait_settled, "causal")
    steps.set_stage("softmax")
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: window.height() == 1080)
    text_size.set_factor(2.0)
    qtbot.waitUntil(lambda: not steps.extras.isVisible())
    qtbot.wait(20)
    assert min(matrix_heights(steps)) >= 2 * MATRIX_ROW_MIN_HEIGHT
    assert steps.softmax_panel.score_plot.minimumHeight() == 300
    view = steps.figure_view
    for plot in steps.figure.plots:  # every value written, at 12 pt or more
        cell = plot.cells.deviceTransform(view.viewportTransform()).mapRect(QRectF(0, 0, 1, 1))
        assert plot.cells.written(cell)[1].pointSizeF() >= 12
    text_size.reset()
    qtbot.waitUntil(steps.extras.isVisible)  # back at 100 %: room for the bars again


def test_sixteen_heads_concatenated_say_which_are_drawn_and_get_the_width(
    window, wait_settled, steps
):
    """Z_cat sat in one eighth of the width (unreadable), and nothing said that heads 9–16
    were left out of the row above it."""
    load(window, wait_settled, "mha")
    window.controls.d_out.spin.setValue(32)
    window.controls.heads.spin.setValue(16)
    wait_settled(window)
    steps.set_stage("concat")
    *heads, concat = steps.figure.plots
    assert len(heads) == 8
    assert "heads 9–16 are in Z_cat" in steps.figure.reason.text
    assert concat.width() > 4 * heads[0].width()


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


def test_the_scaling_demo_is_in_the_examples_menu(window, wait_settled, steps):
    """Its button is on the softmax panel, which a short window leaves out."""
    window.controls.seed.spin.setValue(42)
    wait_settled(window)
    window.why_scaling_action.trigger()
    wait_settled(window)
    assert window.tabs.currentIndex() == 1 and steps.stage == "softmax"
    assert window.trace.config.d_out == 64 and not window.trace.config.scale
    assert steps.followed.text().startswith("Following query 2 “t2”")


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


def test_the_step_through_shows_the_loaded_examples_lesson(window, wait_settled, steps, qtbot):
    """The matrices tab writes the example's lesson under its matrices; the step-through
    said nothing of which tutorial's numbers it walks through."""
    from attn_explorer.engine import PRESETS

    lesson = steps.lesson
    startup = PRESETS["causal-class"]
    assert lesson.isVisible()
    assert lesson.text() == example_lesson(startup.name)
    assert window.board.explanation.text().startswith(lesson.text())  # as the matrices say
    load(window, wait_settled, "dropout")
    whole = example_lesson("dropout")
    assert lesson.text() == whole and lesson.isVisible()
    # An edit that leaves the example takes the lesson away; undoing it brings it back.
    window.controls.dropout_seed.setValue(124)
    wait_settled(window)
    assert not lesson.isVisible()
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert lesson.isVisible() and lesson.text() == whole


def test_in_a_short_window_the_lesson_gives_way_to_the_matrices_and_the_panel(
    window, wait_settled, steps, qtbot
):
    """Written whole at 1024 × 768, the dropout lesson's four lines left out the softmax
    bars there: it is cut to one line (whole in its tooltip) before the panel goes."""
    example = preset("dropout")
    whole = example_lesson(example.name)
    load(window, wait_settled, "dropout")
    steps.set_stage("softmax")
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.height() == 768)
    qtbot.waitUntil(lambda: steps.softmax_panel.isVisible())
    lesson = steps.lesson
    assert lesson.isVisible() and not steps.extras_left_out.isVisible()
    assert lesson.text().endswith("…") and lesson.height() < 2 * lesson.fontMetrics().height()
    assert lesson.toolTip() == whole
    # The matrices keep their least height (laid out on a later turn).
    qtbot.waitUntil(lambda: steps.figure_view.height() >= steps.figure_need() - 1)
    window.resize(1500, 940)  # room: whole again
    qtbot.waitUntil(lambda: lesson.toolTip() == "")
    assert lesson.text() == whole and lesson.isVisible()


def test_a_panel_shown_at_a_larger_text_size_leaves_the_window_as_narrow_as_before(
    window, steps, qtbot, normal_size
):
    """The softmax panel, laid out at 200 % text and then put aside for the mask stage's,
    kept its width of then: back at 100 % the window could not be narrower than 869 px,
    81 more than before (more in a longer language)."""
    window.resize(1024, 768)
    steps.set_stage("mask")
    least = window.minimumSizeHint().width()
    for factor, stage in ((2.0, "softmax"), (1.0, "mask")):
        text_size.set_factor(factor)
        qtbot.wait(50)  # the new fonts reach the widgets as events
        steps.set_stage(stage)
        qtbot.wait(50)
    assert window.minimumSizeHint().width() == least

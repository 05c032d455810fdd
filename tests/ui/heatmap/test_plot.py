"""The matrix plot's cell colours: one LUT lookup per cell, from the colour levels."""

import warnings

import numpy as np
import pytest

from attn_explorer.engine.config import FLOAT32_MAX


def _expected_argb(plot, values: np.ndarray) -> np.ndarray:
    """The colours the cells must take, worked out in float64."""
    lo, hi = plot.levels
    index = np.clip((values.astype(np.float64) - lo) * 255.0 / (hi - lo), 0, 255)
    return plot._lut[index.astype(np.uint8)]


@pytest.mark.parametrize(
    ("values", "levels"),
    [
        ([[3e38, -3e38], [0.0, 1.0]], None),
        ([[FLOAT32_MAX, -FLOAT32_MAX], [1e38, -1e38]], None),
        ([[3e38, -3e38], [0.5, -0.5]], (-1.0, 1.0)),  # shared levels far below the values
    ],
)
def test_embeddings_near_the_float32_limit_are_coloured_without_a_warning(qapp, values, levels):
    """Embeddings of ±3e38, which the app accepts and saves, printed "RuntimeWarning:
    overflow encountered in subtract" on the console: the cell colours were worked out in
    float32, where 3e38 minus the scale's bottom (-3e38) does not fit."""
    from attn_explorer.ui.heatmap import MatrixPlot

    matrix = np.array(values, dtype=np.float32)
    plot = MatrixPlot()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot.set_matrix(matrix, kind="signed", levels=levels)
    assert np.array_equal(plot.image.image, _expected_argb(plot, matrix))


def test_a_pooled_matrix_near_the_float32_limit_keeps_its_block_means(qapp):
    """A matrix of more than 512 rows is shown as the means of blocks of cells: summed in
    float32, four cells of 3e38 overflowed (a warning) to infinity, drawn as masked."""
    from attn_explorer.ui.heatmap import MatrixPlot

    matrix = np.full((1024, 1024), 3e38, dtype=np.float32)
    matrix[512:] = -3e38
    plot = MatrixPlot()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot.set_matrix(matrix, kind="signed")
    image = plot.image.image
    assert image.shape == (512, 512)
    assert (image != 0).all()  # no cell transparent, as a masked one is
    means = np.full((512, 512), 3e38)
    means[256:] = -3e38
    assert np.array_equal(image, _expected_argb(plot, means))


def test_a_pooled_matrix_of_usual_values_is_coloured_by_its_block_means_and_extremes(qapp):
    """Summed in float32 where four cells cannot overflow it (three times faster at 1024
    tokens), the block means colour the cells as float64's would; the scale ends at the
    round number above the largest size of a cell, which the block means would hide."""
    from attn_explorer.ui.heatmap import MatrixPlot

    matrix = np.random.default_rng(7).standard_normal((1024, 1024)).astype(np.float32)
    matrix[1000, 3] = 9.5  # one extreme in a block of three ordinary cells
    plot = MatrixPlot()
    plot.set_matrix(matrix, kind="signed")
    assert plot.levels == (-10.0, 10.0)
    means = matrix.astype(np.float64).reshape(512, 2, 512, 2).mean(axis=(1, 3))
    assert np.array_equal(plot.image.image, _expected_argb(plot, means))


def test_the_widest_label_is_the_widest_token_shown_however_often_tokens_repeat(qapp):
    from PySide6.QtGui import QFont, QFontMetricsF

    from attn_explorer.ui.heatmap.axis import _widest

    font = QFont()
    metrics = QFontMetricsF(font)
    tokens = ["the", "cat", "sat\n", "internationalisation"] * 300
    # The longest token is shown cut to 14 characters, the line break as a visible sign.
    shown = ["the", "cat", "sat↵", "international…"]
    widest = max(metrics.horizontalAdvance(t) for t in shown)
    assert _widest(tokens, font) == pytest.approx(widest + 6)
    assert _widest([], font) == 6
    # Measured once per font and labels: asked again, the same; in a larger font (200 %
    # text), or for other tokens, measured anew.
    assert _widest(tokens, font) == pytest.approx(widest + 6)
    larger = QFont(font)
    larger.setPointSizeF(font.pointSizeF() * 2)
    wider = max(QFontMetricsF(larger).horizontalAdvance(t) for t in shown)
    assert wider > widest
    assert _widest(tokens, larger) == pytest.approx(wider + 6)
    assert _widest(["the", "cat"], font) < _widest(tokens, font)


def test_a_plot_redrawn_with_the_same_or_another_mask_draws_what_a_new_plot_draws(qapp):
    """A seed move keeps the mask: its pooled picture (1024 tokens) and its hatching are
    not worked out again. Drawn after another mask, or after the same one, a plot's cells,
    colours and hatching are a new plot's."""
    from attn_explorer.ui.heatmap import MatrixPlot

    rng = np.random.default_rng(4)
    causal = np.triu(np.ones((1030, 1030), bool), 1)
    window = causal | np.tril(np.ones((1030, 1030), bool), -40)
    small = np.triu(np.ones((6, 6), bool), 1)

    def drawn(plot):
        return plot.image.image.copy(), plot.cells._texts, [r.getRect() for r in plot._hatch.runs]

    used = MatrixPlot()
    for mask in (causal, causal.copy(), window, None, window.copy(), causal, small, small.copy()):
        n = 6 if mask is small or (mask is not None and mask.shape[0] == 6) else 1030
        values = rng.normal(size=(n, n)).astype(np.float32)
        if mask is not None:
            values = np.where(mask, -np.inf, values).astype(np.float32)
        used.set_matrix(values, kind="signed", hidden=mask, neg_inf_text=True)
        new = MatrixPlot()
        new.set_matrix(values, kind="signed", hidden=mask, neg_inf_text=True)
        image, texts, runs = drawn(used)
        assert np.array_equal(image, drawn(new)[0])
        assert (texts, runs) == drawn(new)[1:]

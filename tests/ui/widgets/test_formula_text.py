"""The formula panels under the matrices and in the step-through."""

from PySide6.QtCore import QPointF
from PySide6.QtGui import QFont, QTextLayout

from attn_explorer.ui.widgets import FormulaText

TILDE = "\u0303"


def tilde_centre_and_omega_span(font: QFont) -> tuple[float, float, float]:
    """Where "ω̃[" puts the tilde's centre, and where the ω starts and ends (pixels)."""
    layout = QTextLayout("ω" + TILDE + "[2,1]", font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    glyphs = []  # (x, advance, glyph index, raw font) in drawing order
    for run in layout.glyphRuns():
        raw = run.rawFont()
        advances = raw.advancesForGlyphIndexes(run.glyphIndexes())
        for index, position, advance in zip(
            run.glyphIndexes(), run.positions(), advances, strict=True
        ):
            glyphs.append((position.x(), advance.x(), index, raw))
    tilde = next(g for g in glyphs if g[3].glyphIndexesForString(TILDE) == [g[2]])
    omega = next(g for g in glyphs if g[3].glyphIndexesForString("ω") == [g[2]])
    box = tilde[3].boundingRect(tilde[2]).translated(QPointF(tilde[0], 0))
    return box.center().x(), omega[0], omega[0] + omega[1]


def test_the_tilde_of_the_scaled_scores_sits_on_the_omega(qtbot):
    # DejaVu Sans Mono, which the panels used, drew it over the "[" that follows.
    panel = FormulaText("ω̃[2,1]")
    qtbot.addWidget(panel)
    centre, left, right = tilde_centre_and_omega_span(panel.label.font())
    assert left <= centre <= right


def test_the_panel_keeps_its_height_whatever_it_says(qtbot):
    panel = FormulaText("short", lines=3)
    qtbot.addWidget(panel)
    panel.resize(400, panel.height())
    panel.show()
    height = panel.height()
    panel.setText("α[2,1] = exp(ω̃ₘ[2,1]) / Σ_j exp(ω̃ₘ[2,j]) = 0.4776\n" * 12)
    qtbot.wait(10)
    assert panel.height() == height
    assert panel.text().startswith("α[2,1] = exp(ω̃ₘ[2,1])")
    assert panel.verticalScrollBar().maximum() > 0  # the rest is a scroll away


def test_hovering_a_cell_does_not_resize_the_matrices(window, qtbot):
    board = window.board
    view = board.views["weights"]
    before = view.size()
    plot = view.plot
    board.explanation.setText("")
    long = "\n".join(board.explain_cell(plot, r, c) for r in range(3) for c in range(3))
    board.explanation.setText(long)
    qtbot.wait(50)
    assert board.explanation.text() == long
    assert view.size() == before

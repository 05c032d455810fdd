"""A title cut to its room keeps its whole text in its tooltip, and only while it is cut."""

import pyqtgraph as pg
from PySide6.QtCore import QRectF

from attn_explorer.ui.heatmap import ShrinkingLabel


def test_a_new_text_that_fits_leaves_no_tooltip_of_the_text_cut_before(qapp):
    """The stage's reason line, cut at a projector's size, kept the cut sentence as its
    tooltip after a shorter one (another stage, another language) was written whole."""
    figure = pg.GraphicsLayout()
    title = ShrinkingLabel("<b>Query weights W_q</b> · head 1 3×1", size="13pt", color="#000")
    figure.addItem(title, row=0, col=0)
    scene = pg.GraphicsScene()
    scene.addItem(figure)
    figure.setGeometry(QRectF(0, 0, 120, 40))
    assert title.item.toPlainText().endswith(" …")
    assert title.item.toolTip() == "Query weights W_q · head 1 3×1"
    title.setText("Keys", size="13pt", color="#000")
    assert title.item.toPlainText() == "Keys"
    assert not title._cut and title.item.toolTip() == ""
    scene.removeItem(figure)  # (gone with its scene at exit, it crashed Python's exit)

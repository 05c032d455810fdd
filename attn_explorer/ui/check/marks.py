"""The verdicts of "Check my numbers" drawn on the Matrices tab: an outline on each checked
cell of the matrix that shows its array, while the dialog is open.

Separate from the heatmap, which knows nothing of checks: the marks are outline items added
to a plot's cells and taken away again, in a pen whose style says the verdict without its
colour (wrong: thick solid, follows: dashed, right: thin dotted). A cell not given is not
marked. They are drawn again when the check changes, when the board shows another array or
head, and taken away when the dialog closes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QRectF, Qt
from PySide6.QtGui import QColor, QPen

from attn_explorer.ui.heatmap.outline import OutlineItem

if TYPE_CHECKING:
    from attn_explorer.engine.check import CheckResult
    from attn_explorer.ui.matrices.board import MatrixBoard

PENS = {
    "wrong": ("#c00020", 3.0, Qt.PenStyle.SolidLine),
    "follows": ("#b07000", 2.0, Qt.PenStyle.DashLine),
    "right": ("#1a7f37", 1.0, Qt.PenStyle.DotLine),
}
MARK_Z = 10  # above the cells, their values and the followed row's outline


class CheckMarks(QObject):
    """Outlines on `board`'s matrices for one check's cells."""

    def __init__(self, board: MatrixBoard) -> None:
        super().__init__(board)
        self.board = board
        self.result: CheckResult | None = None
        self.items: list[tuple[object, OutlineItem]] = []  # (plot, outline)
        board.score_box.currentIndexChanged.connect(self.redraw)
        board.weight_box.currentIndexChanged.connect(self.redraw)
        board.head_box.headChosen.connect(self.redraw)

    def show(self, result: CheckResult | None) -> None:
        self.result = result
        self.redraw()

    def take_away(self, *_args: object) -> None:
        """The dialog closed: its verdicts leave the matrices."""
        self.show(None)

    def clear(self) -> None:
        for plot, item in self.items:
            plot.removeItem(item)
        self.items = []

    def shown_arrays(self) -> dict[str, object]:
        """Array name → the plot showing it on the Matrices tab."""
        board = self.board
        chosen = {
            "scores": board.score_box.currentData(),
            "weights": board.weight_box.currentData(),
            "queries": "queries",
            "keys": "keys",
            "values": "values",
            "context": "context",
        }
        return {name: board.views[key].plot.plot for key, name in chosen.items()}

    def redraw(self, *_args: object) -> None:
        self.clear()
        result, board = self.result, self.board
        if result is None or board.trace is None:
            return
        plots = self.shown_arrays()
        for cell in result.cells:
            plot = plots.get(cell.array)
            if plot is None or cell.verdict not in PENS:
                continue
            if board.trace.info(cell.array).per_head and board.shown_head != result.head:
                continue
            colour, width, style = PENS[cell.verdict]
            pen = QPen(QColor(colour), width)
            pen.setCosmetic(True)
            pen.setStyle(style)
            item = OutlineItem(QRectF(cell.col + 0.08, cell.row + 0.08, 0.84, 0.84))
            item.setPen(pen)
            item.setZValue(MARK_Z)
            plot.addItem(item)
            self.items.append((plot, item))

    def marked(self) -> list[tuple[str, int, int, str]]:
        """(array, row, col, verdict) of every outline drawn, for tests and screenshots."""
        plots = {id(plot): name for name, plot in self.shown_arrays().items()}
        out = []
        for plot, item in self.items:
            rect = item.rect()
            verdict = next(v for v, (c, _w, _s) in PENS.items() if item.pen().color().name() == c)
            out.append((plots[id(plot)], round(rect.y()), round(rect.x()), verdict))
        return out

"""The verdicts of "Check my numbers" drawn on the matrices: an outline on each checked cell
of every matrix that shows its array, on the Matrices tab and on the step-through's stage,
while the dialog is open.

Separate from the heatmap, which knows nothing of checks: the marks are outline items added
to a plot's cells and taken away again, in a pen whose style says the verdict without its
colour (wrong: thick solid, follows: dashed, right: thin dotted). A cell not given is not
marked. They are drawn again when the check changes (a new configuration is checked again,
and cells outside its arrays go), when the board shows another array or head or the
step-through another stage, and taken away when the dialog closes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QRectF, Qt
from PySide6.QtGui import QColor, QPen

from attn_explorer.ui.heatmap.outline import OutlineItem

if TYPE_CHECKING:
    from attn_explorer.engine.check import CheckResult
    from attn_explorer.ui.matrices.board import MatrixBoard
    from attn_explorer.ui.steps.stepper import StepThrough

PENS = {
    "wrong": ("#c00020", 3.0, Qt.PenStyle.SolidLine),
    "follows": ("#b07000", 2.0, Qt.PenStyle.DashLine),
    "right": ("#1a7f37", 1.0, Qt.PenStyle.DotLine),
}
MARK_Z = 10  # above the cells, their values and the followed row's outline


class CheckMarks(QObject):
    """Outlines on `board`'s matrices, and on `stepper`'s stage, for one check's cells."""

    def __init__(self, board: MatrixBoard, stepper: StepThrough | None = None) -> None:
        super().__init__(board)
        self.board = board
        self.stepper = stepper
        self.result: CheckResult | None = None
        self.items: list[tuple[object, OutlineItem]] = []  # (plot, outline)
        self.stage_items: list[tuple[object, OutlineItem, str]] = []  # (plot, outline, array)
        board.score_box.currentIndexChanged.connect(self.redraw)
        board.weight_box.currentIndexChanged.connect(self.redraw)
        board.head_box.headChosen.connect(self.redraw)
        if stepper is not None:
            stepper.drawn.connect(self.redraw_stage)

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

    def clear_stage(self) -> None:
        for plot, item, _name in self.stage_items:
            if item.scene() is not None:  # (a plot left out of a stage has let it go)
                plot.removeItem(item)
        self.stage_items = []

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
        self.redraw_stage()
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
            item = _outline(cell.row, cell.col, cell.verdict)
            plot.addItem(item)
            self.items.append((plot, item))

    def redraw_stage(self) -> None:
        """The outlines on the step-through's matrices: each of the stage's matrices that
        shows a checked array, of the head checked (the stage redraws its plots: after
        each drawing)."""
        self.clear_stage()
        result, stepper = self.result, self.stepper
        if result is None or stepper is None or stepper.trace is None:
            return
        for matrix in stepper.figure.plots:
            shown = matrix.shown
            if shown is None or shown.name not in result.arrays:
                continue
            if stepper.trace.info(shown.name).per_head and shown.head != result.head:
                continue
            for cell in result.of(shown.name):
                if cell.verdict in PENS:
                    item = _outline(cell.row, cell.col, cell.verdict)
                    matrix.plot.addItem(item)
                    self.stage_items.append((matrix.plot, item, shown.name))

    def stage_marked(self) -> list[tuple[str, int, int, str]]:
        """(array, row, col, verdict) of every outline on the step-through's stage."""
        return [(name, *_where(item)) for _plot, item, name in self.stage_items]

    def marked(self) -> list[tuple[str, int, int, str]]:
        """(array, row, col, verdict) of every outline drawn, for tests and screenshots."""
        plots = {id(plot): name for name, plot in self.shown_arrays().items()}
        return [(plots[id(plot)], *_where(item)) for plot, item in self.items]


def _outline(row: int, col: int, verdict: str) -> OutlineItem:
    colour, width, style = PENS[verdict]
    pen = QPen(QColor(colour), width)
    pen.setCosmetic(True)
    pen.setStyle(style)
    item = OutlineItem(QRectF(col + 0.08, row + 0.08, 0.84, 0.84))
    item.setPen(pen)
    item.setZValue(MARK_Z)
    return item


def _where(item: OutlineItem) -> tuple[int, int, str]:
    """The row, column and verdict an outline marks."""
    rect = item.rect()
    verdict = next(v for v, (c, _w, _s) in PENS.items() if item.pen().color().name() == c)
    return round(rect.y()), round(rect.x()), verdict

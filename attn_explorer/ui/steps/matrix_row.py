"""A row of matrices side by side, each as wide as what it holds: the stage figure's rows,
the mask stage's comparison of the two methods and the exported figures' rows."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtWidgets import QGraphicsItem, QGraphicsWidget, QSizePolicy
from shiboken6 import isValid

from attn_explorer.ui.heatmap import MatrixPlot
from attn_explorer.ui.text_size import text_size


class MatrixRow(QGraphicsWidget):
    """Matrices side by side (and the arrow from a stage's inputs to its outputs), each as
    wide as what it holds: its row labels and colour bar, and an equal width for every column
    of cells. Titles take no part: a long one shrinks, then is cut (ShrinkingLabel), so two
    matrices of one shape get one width whatever their titles, and write their values alike.

    A cell is at most `ASPECT` times as wide as tall, unless its values need more; the rows of
    one figure (`join`) keep their cells alike in width (one row's wider only as far as its
    values need). What is left over is shared out on both sides: the row is centred.

    Matrices of one figure with as many rows have cells of one height, the least any of them
    has room for, their cells' bottom edges on one line in a row: a matrix whose column
    labels slant (long tokens, narrow cells) has less of the row's height for its cells, and
    would otherwise draw one token's row at another height than its neighbours do.

    `compact`: neighbouring matrices (no arrow between) say once what they share. A matrix
    of the same shape and labels as its left neighbour leaves its row labels to it; a matrix
    on the same colour scale as its right neighbour, chosen as one for both
    (`MatrixPlot.chosen_levels`, e.g. the heads of Z), leaves its colour bar to it: the
    room saved goes to the cells, so that four 6×6 matrices in a row (method 1's steps of
    softmax) still write their values.
    """

    # Its least size changed. A view that sizes the figure to itself must size it again when
    # the least size shrinks: Qt grows a widget to a larger least size, and leaves it there.
    leastChanged = Signal()

    ASPECT = 2.0
    LEAST_CELLS = 40  # px of cells a matrix keeps where the row has room (one column of a V)

    def __init__(
        self, follow_text_size: bool = True, spacing: float = 2, compact: bool = True
    ) -> None:
        self.items: list[QGraphicsWidget] = []  # before Qt asks for the size hint
        self._fixed: dict[int, float] = {}  # id(item) → width, for items other than matrices
        self._overhead: dict[int, tuple[float, float]] = {}  # id(plot) → (width, height)
        self.group: list[MatrixRow] = [self]
        self._arranging = False
        # id(plot) → the slot that follows its resizing, for the plots the row holds: a plot
        # that leaves is no longer followed (a stage stacked on two rows hands plots from
        # one to the other).
        self._watched: dict[int, object] = {}
        self._follow = follow_text_size
        self.spacing = spacing
        self.cell_widths: list[float] = []  # of the matrices, as last arranged
        # Rows of cells → the cell height every matrix of the group with that many rows
        # gets (see `_even_heights`); set by `arrange`.
        self._even: dict[int, float] = {}
        self._compact = compact
        # False: no matrix of the row shows its colour bar, their room going to the cells
        # (a stage at a large text size on a projector: see StageFigure.show_stage).
        self.bars = True
        super().__init__()
        self.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)

    @staticmethod
    def join(rows: Sequence[MatrixRow]) -> None:
        """Rows of one figure: their cells are kept alike in width."""
        for row in rows:
            row.group = list(rows)

    def set_items(
        self, items: Sequence[QGraphicsWidget], fixed: dict[int, float] | None = None
    ) -> None:
        """Show `items` (MatrixPlots, or others of the fixed widths `fixed`, by id) left to
        right; items shown before and not now leave the scene."""
        for old in self.items:
            if old in items:
                continue
            slot = self._watched.pop(id(old), None)
            if slot is not None and isValid(old.view):  # (a plot deleted: nothing to follow)
                old.view.sigResized.disconnect(slot)
            if old.parentItem() is self:  # (not taken by another row)
                if isinstance(old, MatrixPlot):
                    old.show_row_labels(True)
                    old.show_colorbar(True)
                old.setParentItem(None)
                if old.scene() is not None:
                    old.scene().removeItem(old)
        for item in items:
            item.setParentItem(self)
            if isinstance(item, MatrixPlot) and id(item) not in self._watched:
                slot = self._watched[id(item)] = lambda _view, plot=item: self._plot_resized(plot)
                item.view.sigResized.connect(slot)
        self.items = list(items)
        self._fixed = dict(fixed or {})
        self._overhead = {}
        self.arrange()

    def _neighbours(self, across: bool = False) -> list[tuple[MatrixPlot, MatrixPlot]]:
        """Matrices side by side with nothing between them (an arrow parts them), or with
        at most the arrow between them (`across`)."""
        if across:
            plots = self._plots()
            return list(itertools.pairwise(plots))
        return [
            (left, right)
            for left, right in itertools.pairwise(self.items)
            if isinstance(left, MatrixPlot) and isinstance(right, MatrixPlot)
        ]

    def _share(self) -> bool:
        """Show each matrix's row labels and colour bar, or leave them to a neighbour that
        shows the same (see the class); whether any changed."""
        plots = self._plots()
        labels = {id(plot): True for plot in plots}
        bars = {id(plot): self.bars for plot in plots}
        if self._compact:
            for left, right in self._neighbours(across=True):
                if (
                    left.matrix is not None
                    and right.matrix is not None
                    and left.matrix.shape == right.matrix.shape
                    and left.labels[0]
                    and left.labels == right.labels
                ):
                    # One shape and labels: one width of cells (see `cells`), column labels
                    # as tall, and so the rows at the same height.
                    labels[id(right)] = False
            for left, right in self._neighbours():
                if (
                    left.colorbar is not None
                    and right.colorbar is not None
                    and left.chosen_levels is not None
                    and left.matrix is not None
                    and right.matrix is not None
                    and (left.kind, left.levels, left.over, left.chosen_levels)
                    == (right.kind, right.levels, right.over, right.chosen_levels)
                ):
                    bars[id(left)] = False
        changed = False
        for plot in plots:
            if (plot.row_labels_shown, plot.colorbar_shown) != (labels[id(plot)], bars[id(plot)]):
                changed = True
                plot.show_row_labels(labels[id(plot)])
                plot.show_colorbar(bars[id(plot)])
                self._overhead.pop(id(plot), None)  # to be measured again
        return changed

    def _plots(self) -> list[MatrixPlot]:
        return [item for item in self.items if isinstance(item, MatrixPlot)]

    def _fixed_width(self, item: QGraphicsWidget) -> float:
        width = self._fixed.get(id(item))
        return item.effectiveSizeHint(Qt.SizeHint.MinimumSize).width() if width is None else width

    def _fit_hints(self) -> None:
        """The row's least and preferred size, set rather than computed on request (no
        Python called from Qt's layouts, which ask while a dropped figure is torn down):
        as wide as its items' least widths (a matrix's title must not ask for width), as
        tall as the tallest."""
        width = sum(
            item.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()
            if isinstance(item, MatrixPlot)
            else self._fixed_width(item)
            for item in self.items
        )
        width += self.spacing * max(len(self.items) - 1, 0)
        least = max(
            (i.effectiveSizeHint(Qt.SizeHint.MinimumSize).height() for i in self.items), default=0
        )
        wanted = max(
            (i.effectiveSizeHint(Qt.SizeHint.PreferredSize).height() for i in self.items),
            default=0,
        )
        if (self.minimumWidth(), self.minimumHeight()) != (width, least):
            self.setMinimumSize(width, least)
            self.leastChanged.emit()
        if (self.preferredWidth(), self.preferredHeight()) != (width, wanted):
            self.setPreferredSize(width, wanted)

    def resizeEvent(self, event: object) -> None:
        super().resizeEvent(event)
        self.arrange()

    def _shape(self, plot: MatrixPlot) -> tuple[int, int]:
        return plot.matrix.shape if plot.matrix is not None else (1, 1)

    def _overheads(self, plot: MatrixPlot) -> tuple[float, float]:
        """The width and height of everything but the cells: measured once laid out (row
        labels, colour bar, title, column labels), else the least size as an estimate."""
        known = self._overhead.get(id(plot))
        if known is not None:
            return known
        least = plot.effectiveSizeHint(Qt.SizeHint.MinimumSize)
        return least.width(), least.height()

    def _cell_height(self, plot: MatrixPlot, height: float) -> float:
        """The height of the plot's cells in a row `height` tall: the one its matrices of
        as many rows share, else all the row leaves it."""
        rows = self._shape(plot)[0]
        room = (height - self._overheads(plot)[1]) / rows
        even = self._even.get(rows)
        return room if even is None else min(room, even)

    def _even_heights(self) -> dict[int, float]:
        """For each number of rows that two or more matrices of the group show, the least
        cell height any of them has room for in its row (rows not laid out yet aside)."""
        least: dict[int, float] = {}
        count: dict[int, int] = {}
        for row in self.group:
            height = row.size().height()
            if height <= 0:
                continue
            for plot in row._plots():
                rows = row._shape(plot)[0]
                room = max((height - row._overheads(plot)[1]) / rows, 0.0)
                least[rows] = min(least.get(rows, math.inf), room)
                count[rows] = count.get(rows, 0) + 1
        return {rows: cell for rows, cell in least.items() if count[rows] > 1}

    def _needs(self, plot: MatrixPlot, height: float) -> tuple[float, float]:
        """The least cell width in which the plot writes values at all, and the least in
        which it writes them in full; infinite when its cells are too short for any."""
        return plot.cells.widths_needed(self._cell_height(plot, height))

    def cells(self, width: float) -> tuple[list[float], float]:
        """Each matrix's cell width, and the width the matrices that need no more share.

        Matrices of one shape get one width. Where there is room for every matrix's values,
        each column of cells gets an equal share of the room; where there is not, the
        matrices that cost least to write get what their values need, by shape, cheapest
        first (the room should go where it shows most numbers), and the rest share what is
        left; a matrix keeps `LEAST_CELLS` of cells where the row has room for it."""
        plots = self._plots()
        if not plots:
            return [], 0.0
        height = self.size().height()
        scale = text_size.points(1.0, self._follow)
        room = width - self.spacing * max(len(self.items) - 1, 0)
        room -= sum(self._fixed_width(item) for item in self.items if item not in plots)
        room -= sum(self._overheads(plot)[0] for plot in plots)
        room = max(room, 0.0)
        columns = [self._shape(plot)[1] for plot in plots]
        needs = [self._needs(plot, height) for plot in plots]
        floors = [self.LEAST_CELLS * scale / n for n in columns]
        if sum(n * f for n, f in zip(columns, floors, strict=True)) > room:
            floors = [0.0] * len(plots)
        shapes: dict[tuple[int, int], list[int]] = {}
        for index, plot in enumerate(plots):
            shapes.setdefault(self._shape(plot), []).append(index)
        groups = sorted(
            shapes.values(),
            # At one cost, more matrices first: as many values, and fewer matrices without.
            key=lambda group: (
                sum(columns[i] for i in group) * max(needs[i][0] for i in group),
                -len(group),
            ),
        )
        for group in groups:
            least = max(needs[i][0] for i in group)
            if not math.isfinite(least):
                continue
            tried = list(floors)
            for i in group:
                tried[i] = max(tried[i], least)
            if sum(n * f for n, f in zip(columns, tried, strict=True)) <= room + 1e-6:
                floors = tried
        share = _fill(room, columns, floors)
        widths = [max(share, floor) for floor in floors]
        # Not much wider than tall, unless the values need it (a 6×3 X alone in a row), or
        # the column labels to lie flat (a matrix stacked alone in its row: slanted, they
        # would take the height its rows need for their labels).
        for index, plot in enumerate(plots):
            tall = self._cell_height(plot, height)
            full = needs[index][1] if math.isfinite(needs[index][1]) else 0.0
            flat = plot._label_widths[2] if len(plots) == 1 else 0.0
            widths[index] = min(widths[index], max(self.ASPECT * tall, full, floors[index], flat))
        # Matrices of one shape: one width (their values' needs may differ).
        for group in shapes.values():
            for i in group:
                widths[i] = min(widths[j] for j in group)
        return widths, share

    def _plot_resized(self, plot: MatrixPlot) -> None:
        """A plot re-laid out by itself (new row labels, a colour bar's new labels, column
        labels slanted): arrange again, on the next turn, if its cells moved.

        A row deleted by Qt with its scene (a closed step-through) leaves this connected to
        plots that outlive it in the figure pool: such a row has nothing to arrange."""
        if not isValid(self) or self._arranging or plot not in self.items:
            return
        view = plot.view.geometry()
        measured = (plot.size().width() - view.width(), plot.size().height() - view.height())
        known = self._overhead.get(id(plot))
        if known is None or max(abs(a - b) for a, b in zip(known, measured, strict=True)) > 0.5:
            # On the next turn of the event loop; cancelled with the row if it goes first.
            QTimer.singleShot(0, self, self.arrange)

    def arrange(self) -> None:
        """Give each item its width and the row's height, the row centred."""
        if self._arranging:
            return
        for row in self.group:
            row._share()
            row._fit_hints()
        for row in self.group:
            row._arranging = True
        try:
            # Again while the cells' heights move: a row's placing measures its plots'
            # labels, which sets the height the other rows' cells must match.
            for _ in range(3):
                even = self._even_heights()
                for row in self.group:
                    row._even = even
                for row in self.group:
                    row._place()
                after = self._even_heights()
                if after.keys() == even.keys() and all(
                    abs(after[n] - even[n]) <= 0.25 for n in even
                ):
                    break
        finally:
            for row in self.group:
                row._arranging = False

    def _place(self) -> None:
        width, height = self.size().width(), self.size().height()
        if not self.items or width <= 0:
            return
        for _ in range(3):  # again if the plots' overheads were not as estimated
            shares = [row.cells(width)[1] for row in self.group if row._plots()]
            shared = min(shares) if shares else 0.0
            cells, _ = self.cells(width)
            plots = self._plots()
            # The rows of a figure keep their cells alike: wider than the other rows' only
            # as far as the values need.
            for index, plot in enumerate(plots):
                full = self._needs(plot, height)[1]
                full = full if math.isfinite(full) else 0.0
                cells[index] = min(cells[index], max(shared, full))
            # A matrix that leaves its row labels to its left neighbour keeps its cells (and
            # so its column labels' slant, and its rows' height) as wide as the neighbour's:
            # the widest of the two, which `cells` gave both.
            for index in range(len(plots) - 1, 0, -1):
                if not plots[index].row_labels_shown:
                    cells[index - 1] = max(cells[index - 1], cells[index])
            for index in range(1, len(plots)):
                if not plots[index].row_labels_shown:
                    cells[index] = cells[index - 1]
            self.cell_widths = cells
            widths = []
            for item in self.items:
                if isinstance(item, MatrixPlot):
                    index = plots.index(item)
                    wanted = self._overheads(item)[0] + self._shape(item)[1] * cells[index]
                    # Never below its least width, which Qt would give it anyway, past the
                    # room counted here: the last matrix would stand out of the figure.
                    least = item.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()
                    widths.append(max(wanted, least))
                else:
                    widths.append(self._fixed_width(item))
            total = sum(widths) + self.spacing * (len(widths) - 1)
            x = max((width - total) / 2, 0.0)
            # Each matrix as tall as its cells of the shared height need; the cells' bottom
            # edges on one line, the row's tallest matrix at its top.
            tall = {
                id(plot): max(
                    min(height, self._overheads(plot)[1] + rows * self._even[rows]),
                    plot.effectiveSizeHint(Qt.SizeHint.MinimumSize).height(),
                )
                for plot in plots
                if (rows := self._shape(plot)[0]) in self._even
            }
            block = max(tall.values(), default=height)
            if len(tall) < len(plots):
                block = height
            changed = False
            for item, item_width in zip(self.items, widths, strict=True):
                item_height = tall.get(id(item), height)
                top = block - item_height if id(item) in tall else 0.0
                item.setGeometry(QRectF(x, top, item_width, item_height))
                x += item.size().width() + self.spacing
                if isinstance(item, MatrixPlot):
                    item.layout.activate()
                    view = item.view.geometry()
                    if view.width() <= 0:
                        continue
                    size = item.size()
                    measured = (size.width() - view.width(), size.height() - view.height())
                    old = self._overheads(item)
                    self._overhead[id(item)] = measured
                    changed |= max(abs(old[0] - measured[0]), abs(old[1] - measured[1])) > 0.5
            if not changed:
                break


def _fill(room: float, columns: list[int], floors: list[float]) -> float:
    """The cell width c for which columns[i] × max(c, floors[i]) add up to `room`."""
    fixed: set[int] = set()
    while True:
        kept = sum(columns[i] * floors[i] for i in fixed)
        free = sum(n for i, n in enumerate(columns) if i not in fixed)
        if free == 0:
            return 0.0
        share = max(room - kept, 0.0) / free
        more = {i for i, f in enumerate(floors) if f > share} - fixed
        if not more:
            return share
        fixed |= more

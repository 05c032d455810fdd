"""The live matrices: scores, mask and weights large, Q, K, V and the output below; or all heads.

The board renders a trace and reports what the learner points at; it never computes. Hovering
a cell shows its derivation (from the engine's `explain`) in a tooltip and in the explanation
strip under the matrices, readable from the back of a room. Clicking a cell follows its query.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from attn_explorer.engine import ARRAY_INFO, AttentionConfig, Trace
from attn_explorer.text.explain import explain
from attn_explorer.text.i18n import N_
from attn_explorer.ui.heatmap import (
    CATEGORY_LABELS,
    CMAPS,
    ColorBar,
    MatrixPlot,
    MatrixView,
)
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.matrices.arrangement import (
    FULL,
    Arrangement,
    SharedFor,
    arranged_for,
    choose,
    notice_text,
    widths,
)
from attn_explorer.ui.matrices.choices import (
    HEAD_ARRAYS,
    SCORE_VARIANTS,
    WEIGHT_VARIANTS,
    name_items,
    naming_key,
)
from attn_explorer.ui.matrices.choices import choice_text as choice_text  # where tests find it
from attn_explorer.ui.matrices.context_menu import install_matrix_menu
from attn_explorer.ui.matrices.notice_line import NoticeLine, NoticePlace
from attn_explorer.ui.matrices.paint_pass import OnePaintPass
from attn_explorer.ui.matrices.pointing import CellPointing
from attn_explorer.ui.matrices.trace_plots import (
    HeadChoice,
    kind_of,
    shared_levels,
    show_array,
)
from attn_explorer.ui.text_size import text_size
from attn_explorer.ui.widgets import FormulaText, HeadBox, ShrinkButton, choice_box


class MatrixBoard(CellPointing, HeadChoice, QWidget):
    """All live heatmaps of the main window and the controls that choose what they show."""

    querySelected = Signal(int)
    explained = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.trace: Trace | None = None
        self.query: int | None = 1
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

        # The words of the controls are written by `_retranslate`, again in a new language.
        bar = QHBoxLayout()
        self.head_label = QLabel()
        bar.addWidget(self.head_label)
        self.head_box = HeadBox("")
        bar.addWidget(self.head_box)
        # The row's widgets may all be narrower than their texts (a short name, elided
        # labels): at a large text size their full texts would widen the window past a
        # 1024-pixel projector.
        self.all_heads = ShrinkButton("", "")
        self.all_heads.setCheckable(True)
        bar.addWidget(self.all_heads)
        bar.addSpacing(16)
        self.score_box = choice_box(SCORE_VARIANTS, shrink_to=7)
        self.weight_box = choice_box(WEIGHT_VARIANTS, shrink_to=7)
        self.heads_array = choice_box(HEAD_ARRAYS, shrink_to=7)
        # Each box's tooltip: what it chooses, then what its current item holds under this
        # configuration (`choice_text`, as its item's own tooltip in the list).
        self._named: tuple | None = None  # the `naming_key` the boxes' items were named for
        self._pass: OnePaintPass | None = None  # the matrices' last paint pass (`after_picture`)
        self._check_waits = False  # the values' notice is checked after the picture
        self._box_help = {
            self.score_box: N_("Which scores the left matrix shows"),
            self.weight_box: N_("Which weights the right matrix shows"),
            self.heads_array: N_("Which matrix the grid shows for every head"),
        }
        for box in self._box_help:
            # Their texts follow the configuration: each box asks for the width of its texts
            # of now (`ElidingComboBox`).
            box.currentIndexChanged.connect(lambda _index, b=box: self._explain_box(b))
            bar.addWidget(box)
        bar.addStretch(1)
        layout.addLayout(bar)
        self.bar = bar  # where the compare tools (ui/compare) put their buttons

        self.pages = QStackedWidget()
        # Beside the matrices: the heads' panel and the comparison's summary (ui/compare).
        self.beside = QHBoxLayout()
        self.beside.addWidget(self.pages, 1)
        layout.addLayout(self.beside, 1)
        # How a plot draws one array and explains a cell: the compare tools draw A, B or
        # B − A through these.
        self.drawer = show_array
        self.explainer = explain
        self.grid_scale = lambda trace, name: (kind_of(name), shared_levels(trace, name))
        self.views: dict[str, MatrixView] = {}
        # Two rows of views; which views each holds follows the room (see arrangement.py).
        self._rows: list[tuple[QWidget, QHBoxLayout]] = []
        split = QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)
        self._split = split
        for _row in range(2):
            row = QWidget()
            row_layout = QHBoxLayout(row)
            row_layout.setContentsMargins(0, 0, 0, 0)
            row_layout.setSpacing(2)
            self._rows.append((row, row_layout))
            split.addWidget(row)
        for key in FULL.keys:
            view = MatrixView()
            # Widths by the stretch factors alone (see `_share_width`), not the views' hints.
            view.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Expanding)
            self.views[key] = view
            install_matrix_menu(view)  # right-click: check, copy, follow, export
            view.plot.cellHovered.connect(lambda hover, v=view: self._hovered(v.plot, hover))
            view.plot.cellClicked.connect(lambda r, c, v=view: self._clicked(v.plot, r, c))
            view.plot.view.sigResized.connect(self._values_may_change)
        self.arrangement = FULL
        self._arranged_for: tuple | None = None  # what the arrangement was chosen for
        self._shared_for = SharedFor()  # what the views' widths were shared out for
        self._arrange(FULL)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        self.pages.addWidget(split)

        self._grid: pg.GraphicsLayoutWidget | None = None  # built on first use
        self.grid_plots: list[MatrixPlot] = []
        self._grid_pool: list[MatrixPlot] = []
        self.grid_bar = ColorBar()

        # Under the matrices, where the eye is: values left out, or cut to two decimals,
        # for want of room (a 1024-pixel projector) are said to be, with how to get them;
        # the cells alone do not say why they are empty. A line of its own, kept when
        # empty: a notice that came and went (values of a wider width on a slider move)
        # would move every cell under the mouse.
        self.values_notice = NoticeLine()
        layout.addWidget(NoticePlace(self.values_notice))
        self.controls_shown = True  # the window's left column (F9): see `set_controls_shown`
        # A child timer, not QTimer.singleShot(0, self, ...): a pending single shot holds its
        # callable, and with it this board and its window, after the window is closed.
        self._values_check = QTimer(self)
        self._values_check.setSingleShot(True)
        self._values_check.setInterval(0)
        self._values_check.timeout.connect(self._check_values)

        self.explanation = FormulaText(lines=4, least=2)
        layout.addWidget(self.explanation)
        text_size.changed.connect(self._fit_help)
        text_size.changed.connect(self._values_may_change)

        self.head_box.headChosen.connect(lambda _head: self._redraw())
        self.all_heads.toggled.connect(self._page_chosen)
        self.score_box.currentIndexChanged.connect(self._redraw)
        self.weight_box.currentIndexChanged.connect(self._redraw)
        self.heads_array.currentIndexChanged.connect(self._redraw)
        self._retranslate()
        self._page_chosen(False)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:  # the user chose another language
            self._retranslate()
            self._redraw()

    def _retranslate(self) -> None:
        """Write the controls' words, and the matrices' items and notices, in the language
        of now: at construction, and when the language changes while the window is open."""
        self.head_label.setText(_tr("Head"))
        self.head_box.setToolTip(_tr("Which head the matrices show (Ctrl+[ and Ctrl+] step)"))
        self.all_heads.set_texts(_tr("All heads side by side"), _tr("All heads"))
        self.all_heads.setToolTip(_tr("Show one matrix for every head in a grid"))
        self._named = None  # the items are written again, in the words of now
        if self.trace is not None:
            self._name_items(self.trace.config)
        else:
            for box, items in (
                (self.score_box, SCORE_VARIANTS),
                (self.weight_box, WEIGHT_VARIANTS),
                (self.heads_array, HEAD_ARRAYS),
            ):
                for index, (_name, label) in enumerate(items):
                    box.setItemText(index, _tr(label))
        for box in self._box_help:
            self._explain_box(box)
        # The hover help until a cell is hovered (an explanation in the language it was
        # written in would stay until the next hover).
        self.explanation.setText(
            _tr(
                "Hover over a cell to see how it is computed; click to follow its query. "
                "Keyboard: Ctrl+1 (or Tab) to a matrix, the arrows to move, Enter to follow."
            )
        )
        if self.trace is not None:
            # The colour bars' words ("1 hidden") are written when their levels change.
            for plot in [view.plot for view in self.views.values()] + self.grid_plots:
                if plot.colorbar is not None:
                    plot.colorbar.fit_labels()
            self.grid_bar.fit_labels()
            self._values_may_change()

    HELP_SHARE = 7  # the hover help takes at most a seventh of the board's height

    def resizeEvent(self, event: object) -> None:
        super().resizeEvent(event)
        self._fit_help()

    def _fit_help(self) -> None:
        """Four lines of hover help where the board is tall, down to two in a short window
        or at a large text size, where four lines would take too much from the matrices.
        Fitted to the board's height, never to the text shown: a pane that grew with the
        text would move the cell under the mouse."""
        self.explanation.fit_to(self.height() // self.HELP_SHARE)

    def set_controls_shown(self, on: bool) -> None:
        """Whether the window's controls column is open: F9, which the notice of hidden
        values offers, would close it."""
        if on != self.controls_shown:
            self.controls_shown = on
            self._values_may_change()

    def _values_may_change(self) -> None:
        """Check the values' notice once the layout has settled (a resize moves every view
        in turn): on the next turn of the event loop, once however many ask."""
        if not self._values_check.isActive():
            self._values_check.start()

    def settled(self) -> bool:
        """Whether the arrangement and the values' notice are those of the room of now (no
        check of them is waiting for the next turn of the event loop)."""
        return not self._values_check.isActive() and not self._check_waits

    def values_written(self) -> list[str]:
        """How each matrix on the page shown writes its values (`MatrixPlot.values_written`),
        leaving out those that have none to write, and those the arrangement hides."""
        grid = self.pages.currentIndex() != 0
        if grid:
            plots = self.grid_plots
        else:
            plots = [view.plot for key, view in self.views.items() if key in self.arrangement.keys]
        return [how for how in (plot.values_written() for plot in plots) if how]

    def _arrange(self, arrangement: Arrangement) -> None:
        """Lay the views out in `arrangement`'s rows, the others hidden."""
        self.arrangement = arrangement
        for _row, row_layout in self._rows:
            while row_layout.count():
                row_layout.takeAt(0)
        for (row, row_layout), keys in zip(self._rows, (*arrangement.rows, ()), strict=False):
            row.setVisible(bool(keys))
            for index, key in enumerate(keys):
                view = self.views[key]
                row_layout.addWidget(view)
                view.plot.show_row_labels(not (arrangement.shared_labels and index > 0))
                view.setVisible(True)
        for key, view in self.views.items():
            if key not in arrangement.keys:
                view.setVisible(False)
                view.plot.show_row_labels(True)
        self._shared_for.forget()  # the rows' stretches went with their items
        self._share_width()
        total = sum(self._split.sizes())
        if total > 0:  # (not before the page is laid out: its stretch factors do that)
            shares = arrangement.heights
            self._split.setSizes([total * share // sum(shares) for share in shares] + [0])

    def _rearrange(self) -> bool:
        """Choose the arrangement for the page's room now; whether it changed."""
        if self.pages.currentIndex() != 0 or self.trace is None:
            return False
        plots = {key: view.plot for key, view in self.views.items()}
        room = self.pages.size()
        key = arranged_for(room.width(), room.height(), plots)
        if key == self._arranged_for:
            return False
        self._arranged_for = key
        chosen = choose(
            plots,
            room.width(),
            room.height(),
            self._rows[0][1].spacing(),
            self._split.handleWidth(),
        )
        if chosen == self.arrangement:
            return False
        self._arrange(chosen)
        return True

    def _check_values(self) -> None:
        self._check_waits = False
        if self._rearrange():
            self._values_may_change()  # once the views have their new sizes
            return
        if self.pages.currentIndex() == 0 and self.arrangement is not FULL:
            self._share_width()  # widths of cells alike for the page's width of now
        grid = self.pages.currentIndex() != 0
        text = notice_text(
            self.values_written(),
            "" if grid else self.arrangement.gone,
            self.controls_shown,
            larger=text_size.factor > 1,
        )
        self.values_notice.say(text)

    @property
    def grid(self) -> pg.GraphicsLayoutWidget:
        """The all-heads page, created the first time it is shown (startup time)."""
        if self._grid is None:
            self._grid = pg.GraphicsLayoutWidget()
            install_matrix_menu(self._grid)
            self._grid.setBackground("w")
            self._grid.setLayoutDirection(Qt.LayoutDirection.LeftToRight)  # head 1 first
            self._grid.ci.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
            self.pages.addWidget(self._grid)
        return self._grid

    # ------------------------------------------------------------------ state from outside
    def set_trace(self, trace: Trace) -> None:
        self.trace = trace
        self.head_box.show_heads(trace.heads)
        self._name_items(trace.config)
        self._redraw()

    def _name_items(self, config: AttentionConfig) -> None:
        """The boxes' items say what this configuration computes (see `choice_text`); the
        chosen items stay chosen. Named once per `naming_key`: a seed move's trace names
        them as the last did (written again, the fifteen items' texts and tooltips cost a
        sixth of the move's update)."""
        key = naming_key(config)
        if key == self._named:
            return
        self._named = key
        name_items(self.score_box, config)
        name_items(self.weight_box, config)
        name_items(self.heads_array, config, grid=True)
        for box in self._box_help:
            self._explain_box(box)

    def _explain_box(self, box: QComboBox) -> None:
        tip = box.currentData(Qt.ItemDataRole.ToolTipRole)
        help_text = _tr(self._box_help[box])
        text = f"{help_text}\n{tip}" if tip else help_text
        if box.toolTip() != text:
            box.setToolTip(text)

    def set_query(self, row: int | None) -> None:
        self.query = row
        for plot in self._query_plots():
            plot.set_highlight(row)

    def show_all_heads(self, on: bool) -> None:
        self.all_heads.setChecked(on)

    # ------------------------------------------------------------------ drawing
    def after_picture(self, call: Callable[[], None]) -> None:
        """Call `call` once the matrices drawn last are on screen: after the paint pass that
        shows them, or at once where none is waiting (the all-heads page, a hidden board).
        What the learner reads beside the matrices (the status bar's summary and times)
        follows the picture instead of holding it back by a paint pass of its own."""
        if self._pass is None:
            call()
        else:
            self._pass.then(call)

    def _page_chosen(self, grid: bool) -> None:
        self.pages.setCurrentWidget(self.grid if grid else self.pages.widget(0))
        self.heads_array.setVisible(grid)
        self.score_box.setVisible(not grid)
        self.weight_box.setVisible(not grid)
        self._redraw()

    def _redraw(self) -> None:
        if self.trace is None:
            return
        waiting = self._values_check.isActive()
        self._values_may_change()  # new values may be wider (a 1000 among them)
        if self.pages.currentIndex() == 0:
            self._pass = OnePaintPass(list(self.views.values()))
            with self._pass:
                self._draw_matrices(self.trace)
                self.set_query(self.query)
            plots, room = {k: v.plot for k, v in self.views.items()}, self.pages.size()
            arranged = arranged_for(room.width(), room.height(), plots) == self._arranged_for
            if arranged and not waiting:
                # New values only (a seed move): the arrangement stands, and the values'
                # notice is checked once they are on screen, not in the same stretch.
                self._values_check.stop()
                self._check_waits = True
                self._pass.then(self._check_values_waiting)
        else:
            self._pass = None
            self._draw_grid(self.trace)
            self.set_query(self.query)

    def _check_values_waiting(self) -> None:
        # (Not checked meanwhile, after a resize; not a board a new language replaced.)
        if self._check_waits and shiboken6.isValid(self):
            self._check_values()

    def _draw_matrices(self, trace: Trace) -> None:
        head = self.shown_head
        chosen = {
            "scores": self.score_box.currentData(),
            "mask": "mask",
            "weights": self.weight_box.currentData(),
            "queries": "queries",
            "keys": "keys",
            "values": "values",
            "context": "context",
        }
        for key, name in chosen.items():
            self.drawer(self.views[key].plot, trace, name, head)
        self._share_width()

    def _share_width(self) -> None:
        """Give each view width by its columns (see `arrangement.widths`): the mask needs
        less than scores and weights, two-column Q/K/V less than a wide context."""
        arrangement = self.arrangement
        plots = {key: view.plot for key, view in self.views.items()}
        across = max(self.pages.width(), 200)
        if not self._shared_for.changed(arrangement, plots, across):
            return
        for (_row, row_layout), keys in zip(self._rows, arrangement.rows, strict=False):
            room = across - row_layout.spacing() * (len(keys) - 1)
            for i, width in enumerate(widths(arrangement, keys, plots, room)):
                if row_layout.stretch(i) != max(round(width), 1):
                    row_layout.setStretch(i, max(round(width), 1))

    def _draw_grid(self, trace: Trace) -> None:
        name = self.heads_array.currentData()
        heads = trace.heads
        if len(self.grid_plots) != heads:
            self.grid.clear()
            # Plots are reused across head counts: one made per change would never be
            # freed, its signal connections hold it.
            while len(self._grid_pool) < heads:
                plot = MatrixPlot(colorbar=False, title_points=10)
                plot.cellHovered.connect(lambda hover, p=plot: self._hovered(p, hover))
                plot.cellClicked.connect(lambda r, c, p=plot: self._clicked(p, r, c))
                plot.view.sigResized.connect(self._values_may_change)
                self._grid_pool.append(plot)
            self.grid_plots = self._grid_pool[:heads]
            for plot in self._grid_pool[heads:]:
                plot.clear()  # not shown: must not keep the old trace's arrays alive
            columns = math.ceil(math.sqrt(heads))
            for h, plot in enumerate(self.grid_plots):
                self.grid.addItem(plot, row=h // columns, col=h % columns)
            self.grid.addItem(
                self.grid_bar, row=0, col=columns, rowspan=max(1, math.ceil(heads / columns))
            )
        kind, levels = self.grid_scale(trace, name)
        self.grid_bar.set_colormap(CMAPS[kind])
        for h, plot in enumerate(self.grid_plots):
            self.drawer(
                plot, trace, name, h, levels=levels, title=_tr("<b>Head {0}</b>").format(h + 1)
            )
        over = any(plot.over for plot in self.grid_plots)
        self.grid_bar.set_levels(*levels, CATEGORY_LABELS.get(kind), over)

    def _query_plots(self) -> list[MatrixPlot]:
        plots = [v.plot for v in self.views.values()]
        plots += self.grid_plots
        return [
            p
            for p in plots
            if getattr(p, "shown", None) and ARRAY_INFO[p.shown.name].rows == "q_tokens"
        ]

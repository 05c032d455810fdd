"""The compare tools of the window: Pin as A (Ctrl+P, and a button by the matrices), which
side the matrices show (A, B or B − A; Ctrl+D cycles), the summary of what differs, the first
differing stage marked in the step-through, and the heads' panel beside the all-heads grid.

Built with the window's views (again when the language changes); what is pinned lives in the
document (`Document.pinned`), so undo, redo and sessions carry it.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QSize, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu, QVBoxLayout, QWidget

from attn_explorer.engine import ConfigError, Trace
from attn_explorer.engine.compare import Comparison, compare
from attn_explorer.text.explain import explain
from attn_explorer.text.numbers import num
from attn_explorer.ui.compare.compare_panel import SIDES, ComparePanel
from attn_explorer.ui.compare.diff_plot import diff_matrix, show_diff
from attn_explorer.ui.compare.heads_panel import HeadsPanel
from attn_explorer.ui.compare.pin import pin, unpin
from attn_explorer.ui.compare.trio import TrioPage
from attn_explorer.ui.heatmap import MatrixPlot, levels_for
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.matrices.trace_plots import kind_of, shared_levels, show_array
from attn_explorer.ui.widgets import ShrinkButton

# B − A of every array is computed in float64 on each new picture: past a million attention
# weights a side (some hundred MB for all arrays) the window leaves it to export --compare.
COMPARE_CELLS = 2**20


class PinButton(ShrinkButton):
    """Pin as A by the matrices, which adds nothing to the least width of their row of
    controls: at the largest text size on a 1024-pixel projector that row is as wide as
    the window can be, and the button gives way (Ctrl+P and the Compare menu stay)."""

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())


class CompareTools(QObject):
    """Everything of comparing and of heads in one window (see the module).

    A child of the board, and its menu and actions of the menu bar: built again with the
    window's views when the language changes, the old ones go with the old views, and their
    connections to the document with them."""

    def __init__(self, window) -> None:
        super().__init__(window.board)
        self.window = window
        self.doc = window.doc
        self.board = window.board
        self.stepper = window.stepper
        self.side = "b"
        self._a: Trace | None = None  # A computed, as B's trace computes (mask comparison)
        self._comparison: Comparison | None = None

        # Its short text where the row is narrow (a 1024-pixel projector): the row of the
        # board's controls must not widen the window past the screen.
        self.pin_button = PinButton("", "")
        self.pin_button.clicked.connect(self.pin)
        self.board.bar.insertWidget(self.board.bar.count() - 1, self.pin_button)
        self.column = QWidget()
        # Its least width is set, not taken from its panels: at a large text size on a
        # 1024-pixel projector the grid keeps its room and the column is cut instead.
        self.column.setMinimumSize(30, 60)
        column = QVBoxLayout(self.column)
        column.setContentsMargins(0, 0, 0, 0)
        self.panel = ComparePanel()
        self.heads = HeadsPanel(self.doc)
        # The trace the heads' panel has yet to measure: importance takes one output per head
        # (3 ms a change at 6 tokens), so it is measured when the panel is shown, not before.
        self._heads_trace: Trace | None = None
        column.addWidget(self.panel, 2)
        column.addWidget(self.heads, 3)
        self.board.beside.addWidget(self.column)
        self._trio: TrioPage | None = None  # built when first shown (see `trio`)
        self._menu(window)

        self.panel.sideChosen.connect(self.show_side)
        self.panel.unpinAsked.connect(self.unpin)
        self.doc.pinnedChanged.connect(self._pinned_changed)
        self.doc.controlsChanged.connect(self.heads.sync)
        window.traceShown.connect(self._trace_shown)
        self.board.all_heads.toggled.connect(self._page_chosen)
        self.board.head_box.headChosen.connect(lambda _head: self._draw_trio())
        for box in (self.board.weight_box, self.board.heads_array):
            box.currentIndexChanged.connect(lambda _index: self._draw_trio())
        self.board.drawer = self._draw
        self.board.explainer = self._explain
        self.board.grid_scale = self._grid_scale
        self.stepper.figure.drawer = self._draw  # the step-through's matrices too
        # Right-click on the head list: switch the head shown off or on.
        self.board.head_box.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.board.head_box.customContextMenuRequested.connect(self._head_menu)
        self.retranslate()
        self._pinned_changed()
        # The window's layout fitted the controls before this column was beside the
        # matrices: fit them again to the tabs' least width with it (see `_place`).
        window.window_layout.fit_controls()

    def _menu(self, window) -> None:
        bar = window.menuBar()
        self.menu = QMenu(bar)
        help_action = bar.actions()[-1]  # before Help, the last menu
        bar.insertMenu(help_action, self.menu)
        self.pin_action = QAction(self.menu)
        self.pin_action.setShortcut(QKeySequence("Ctrl+P"))
        self.pin_action.triggered.connect(self.pin)
        self.unpin_action = QAction(self.menu)
        self.unpin_action.triggered.connect(self.unpin)
        self.menu.addActions([self.pin_action, self.unpin_action])
        self.menu.addSeparator()
        group = QActionGroup(self.menu)
        self.side_actions: dict[str, QAction] = {}
        for side in SIDES:
            action = QAction(self.menu)
            action.setCheckable(True)
            group.addAction(action)
            action.triggered.connect(lambda _on=False, s=side: self.show_side(s))
            self.side_actions[side] = action
            self.menu.addAction(action)
        self.side_actions["b"].setChecked(True)
        self.cycle_action = QAction(self.menu)
        self.cycle_action.setShortcut(QKeySequence("Ctrl+D"))
        self.cycle_action.triggered.connect(self.cycle)
        self.menu.addAction(self.cycle_action)
        self.menu.addSeparator()
        self.figure_action = QAction(self.menu)
        self.figure_action.triggered.connect(self._export_figure_chosen)
        self.menu.addAction(self.figure_action)

    def retranslate(self) -> None:
        self.menu.setTitle(_tr("&Compare"))
        self.pin_action.setText(_tr("&Pin as A"))
        self.unpin_action.setText(_tr("&Unpin A"))
        self.side_actions["a"].setText(_tr("Show &A"))
        self.side_actions["b"].setText(_tr("Show &B"))
        self.side_actions["diff"].setText(_tr("Show B &− A"))
        self.side_actions["trio"].setText(_tr("Show A, B and B − A &side by side"))
        self.cycle_action.setText(_tr("&Next of A, B, B − A"))
        self.figure_action.setText(_tr("Export a &figure of A, B and B − A…"))
        self.pin_button.setToolTip(
            _tr("Keep what is on screen as A, to compare with what you change next (Ctrl+P)")
        )

    # ------------------------------------------------------------------ pinning
    def pin(self) -> None:
        pin(self.doc)

    def unpin(self) -> None:
        unpin(self.doc)

    def _pinned_changed(self) -> None:
        self._a = None
        self._comparison = None
        pinned = self.doc.pinned is not None
        self.unpin_action.setEnabled(pinned)
        for action in self.side_actions.values():
            action.setEnabled(pinned)
        self.cycle_action.setEnabled(pinned)
        self.figure_action.setEnabled(pinned)
        if not pinned and self.side != "b":
            self.show_side("b")
        self._refresh()

    @property
    def trace_a(self) -> Trace | None:
        """A's trace, computed once per pin (None where nothing is pinned or it cannot be)."""
        pinned = self.doc.pinned
        b = self.window.trace
        if pinned is None or b is None:
            return None
        methods = "weights_neg_inf" in b.arrays or not b.config.has_mask
        if self._a is None or ("weights_neg_inf" in self._a.arrays) != (
            methods and self._a.config.has_mask
        ):
            from attn_explorer.engine import compute

            try:
                self._a = compute(pinned.config(), compare_mask_methods=methods)
            except ConfigError:
                self._a = None
        return self._a

    def comparison(self, b: Trace | None = None) -> Comparison | None:
        """B − A for the trace `b` (the one on screen by default), computed once per trace."""
        b = b or self.window.trace
        if b is None or b.config.attention_cells > COMPARE_CELLS:
            return None
        a = self.trace_a
        if a is None or a.config.attention_cells > COMPARE_CELLS:
            return None
        if self._comparison is None or self._comparison.b is not b or self._comparison.a is not a:
            self._comparison = compare(a, b)
        return self._comparison

    # ------------------------------------------------------------------ heads and figures
    def head_menu(self) -> QMenu:
        """The head list's menu: switch the head shown off, or on again."""
        number = self.board.shown_head + 1
        menu = QMenu(self.board.head_box)
        off = number in self.doc.controls.ablate
        text = _tr("Switch head {0} on") if off else _tr("Switch head {0} off")
        action = menu.addAction(text.format(number))
        action.triggered.connect(lambda: self.heads.switch(number, off))
        return menu

    def _head_menu(self, position) -> None:
        menu = self.head_menu()
        menu.exec(self.board.head_box.mapToGlobal(position))
        menu.deleteLater()

    def figure_array(self) -> str:
        """The array a comparison figure shows: the grid's, else the weights shown."""
        if self.board.all_heads.isChecked():
            return self.board.heads_array.currentData()
        return self.board.weight_box.currentData()

    def figure_what(self) -> str:
        """The comparison figure, as the export dialog names it."""
        box = self.board.heads_array if self.board.all_heads.isChecked() else self.board.weight_box
        return _tr("A, B and B − A: {array}, head {head}").format(
            array=box.currentText(), head=self.board.shown_head + 1
        )

    def export_figure(self, path, fmt=None, scale: int = 1, size=None) -> object:
        """Write the figure of A, B and B − A of `figure_array()` (format from `fmt` or the
        name): the Compare menu's and File → Export Figure's."""
        from attn_explorer.ui.compare.figure import export_compare_figure

        comparison = self.comparison()
        if comparison is None:
            raise ValueError(_tr("Pin A first (Ctrl+P)."))
        return export_compare_figure(
            comparison, self.figure_array(), self.board.shown_head, path, fmt, scale, size
        )

    def _export_figure_chosen(self) -> None:
        from PySide6.QtWidgets import QFileDialog, QMessageBox

        from attn_explorer.ui.export.figures import FigureError

        title = _tr("Export a figure of A, B and B − A")
        path, _chosen = QFileDialog.getSaveFileName(
            self.window, title, "compare.png", _tr("Figures (*.png *.svg *.pdf)")
        )
        if not path:
            return
        try:
            self.export_figure(path)
        except (OSError, FigureError) as error:
            QMessageBox.warning(self.window, title, str(error))

    # ------------------------------------------------------------------ what is shown
    def show_side(self, side: str) -> None:
        """Show A, B or B − A in every matrix of the board."""
        if side != "b" and self.doc.pinned is None:
            side = "b"
        self.side = side
        self.panel.show_side(side)
        self.side_actions[side].setChecked(True)
        pages = self.board.pages
        if side == "trio":
            pages.setCurrentWidget(self.trio)
            self._draw_trio()
            self._place()
            return
        if self._trio is not None and pages.currentWidget() is self._trio:
            self._trio.release()
            self.board._page_chosen(self.board.all_heads.isChecked())  # draws again
            self._place()
        else:
            self.board._redraw()
        self.stepper.redraw()

    @property
    def trio(self) -> TrioPage:
        """A, B and B − A side by side, a page of the board built the first time it is shown:
        its three matrices are a tenth of a new window's building, and most windows never
        show it (its least size is none, so the board's layout is the same without it)."""
        if self._trio is None:
            self._trio = TrioPage()
            self.board.pages.addWidget(self._trio)
        return self._trio

    def _page_chosen(self, _grid: bool) -> None:
        """The board's page was chosen (all heads or not): the side by side view gives way."""
        if self.side == "trio":
            self.show_side("b")
        self._place()

    def _draw_trio(self) -> None:
        comparison = self.comparison() if self.side == "trio" else None
        if comparison is not None:
            self.trio.show_comparison(comparison, self.figure_array(), self.board.shown_head)

    def cycle(self) -> None:
        """B → B − A → A → side by side → B: the key that toggles what the matrices show."""
        following = {"b": "diff", "diff": "a", "a": "trio", "trio": "b"}
        self.show_side(following[self.side])

    def _trace_shown(self, trace: Trace) -> None:
        self.heads.set_heads(trace)
        self._heads_trace = trace
        self._refresh()

    def _refresh(self) -> None:
        comparison = self.comparison()
        if comparison is None and self.doc.pinned is not None and self.window.trace is not None:
            self.panel.show_lines(
                [
                    _tr(
                        "A or B has more than {0} attention weights: too many to compare on "
                        "every change. attn-explorer export --compare compares them."
                    ).format(f"{COMPARE_CELLS:,}".replace(",", "\u202f"))
                ]
            )
        else:
            self.panel.show_comparison(comparison)
        self._mark_stage(comparison)
        self._place()
        if self.side == "trio":
            self._draw_trio()
        elif self.side != "b":
            self.board._redraw()
            self.stepper.redraw()

    def _place(self) -> None:
        """The column beside the matrices: the comparison while A is pinned, the heads'
        panel beside the all-heads grid where there are heads to switch."""
        trace = self.window.trace
        many = trace is not None and trace.heads > 1
        self.panel.setVisible(self.doc.pinned is not None)
        grid = self.board.all_heads.isChecked() and self.side != "trio"
        self.heads.setVisible(many and grid)
        shown = self.panel.isVisibleTo(self.column) or self.heads.isVisibleTo(self.column)
        if shown != self.column.isVisibleTo(self.board):
            self.column.setVisible(shown)
            # A widget hidden does not tell its parent's layout (Qt skips it), whose least
            # size would keep the column's: the step-through's tab would be as wide.
            self.board.beside.invalidate()
            self.board.layout().invalidate()
            # The tabs' least width changes with the column: the controls' column takes the
            # rest of the screen's width again, or the window would grow past a 1024-pixel
            # screen (cross-attention, 4 heads, A pinned, at 200 %: 1048 px).
            self.window.window_layout.fit_controls()
        if self.doc.pinned:
            self.pin_button.set_texts(_tr("Pin again as A"), "A")
        else:
            self.pin_button.set_texts(_tr("Pin as A"), "A")
        if self._heads_trace is not None and self.heads.isVisibleTo(self.column):
            trace, self._heads_trace = self._heads_trace, None
            self.heads.set_trace(trace)

    def _mark_stage(self, comparison: Comparison | None) -> None:
        self.stepper.mark_first_difference(
            comparison.first_stage if comparison is not None else None
        )

    # ------------------------------------------------------------------ the board's hooks
    def _draw(
        self, plot: MatrixPlot, trace: Trace, name: str, head: int, *, levels=None, title=None
    ) -> None:
        comparison = self.comparison(trace) if self.side in ("a", "diff") else None
        if comparison is None:
            show_array(plot, trace, name, head, levels=levels, title=title)
            return
        if self.side == "a":
            a = comparison.a
            if name not in a:
                plot.clear()
                plot.set_title(_tr("<b>A</b> · not computed"))
                return
            shown = min(head, a.heads - 1)
            show_array(
                plot,
                a,
                name,
                shown,
                levels=None if levels is None else shared_levels(a, name),
                title=title,
            )
            plot.set_title(_tr("<b>A</b> · {0}").format(plot.title.text))
            return
        show_diff(plot, comparison, name, head, title)

    def _grid_scale(self, trace: Trace, name: str):
        comparison = self.comparison(trace) if self.side in ("a", "diff") else None
        if comparison is None:
            return kind_of(name), shared_levels(trace, name)
        if self.side == "a":
            a = comparison.a
            return kind_of(name), shared_levels(a, name) if name in a else (0.0, 1.0)
        diff = comparison[name].diff
        if diff is None:
            return "signed", (-1.0, 1.0)
        import numpy as np

        return "signed", levels_for("signed", np.where(np.isfinite(diff), diff, np.nan))

    def _explain(self, trace: Trace, name: str, head: int, row: int, col: int) -> str:
        comparison = self.comparison(trace) if self.side in ("a", "diff") else None
        if comparison is None:
            return explain(trace, name, head, row, col)
        if self.side == "a":
            return explain(comparison.a, name, min(head, comparison.a.heads - 1), row, col)
        matrix = diff_matrix(comparison, name, head)
        if matrix is None:
            return ""
        a_value = comparison.a.matrix(name, min(head, comparison.a.heads - 1))[row, col]
        b_value = trace.matrix(name, head)[row, col]
        return _tr("B − A here: {0} − {1} = {2}").format(
            num(b_value), num(a_value), num(matrix[row, col])
        )

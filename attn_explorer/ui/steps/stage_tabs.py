"""The row of stage tabs over the step-through: all ten stages in sight, fitted to the width."""

from __future__ import annotations

from dataclasses import fields

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QTabBar, QWidget

from attn_explorer.engine import STEP_KEYS, Trace
from attn_explorer.text import i18n
from attn_explorer.text.i18n import N_
from attn_explorer.text.steps import step_text

# Symbols are the same in every language and left unmarked; the words are translated where
# the tabs show them.
STAGE_LABELS = (
    "X",
    "Q, K, V",
    "Q·Kᵀ",
    N_("Scale"),
    N_("Mask"),
    N_("Softmax"),
    N_("Dropout"),
    "α·V",
    N_("Concat"),
    N_("Out"),
)

STAGE_LABEL = dict(zip(STEP_KEYS, STAGE_LABELS, strict=True))


class StageTabs(QTabBar):
    """The ten stages as a row of tabs, all in sight: in a narrow window the longest names
    shorten first ("5 Soft…"), then names give way to their numbers ("5"), the whole name
    staying in the tab's tooltip. Qt's own eliding would shorten every tab alike, short
    names too, and to "3 ..." and "8 ...": as long as "3 Q·Kᵀ" and "8 α·V", and unreadable."""

    def __init__(self, names: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setExpanding(False)
        self.setDrawBase(False)
        self.setUsesScrollButtons(False)
        self.setElideMode(Qt.TextElideMode.ElideNone)  # the texts set always fit
        self.names = names
        for number, name in enumerate(names, start=1):
            self.addTab(f"{number} {name}")
        self._labelled: tuple | None = None  # what `label` last wrote the tabs for
        self._given: object = None

    def label(self, trace: Trace, marked: str | None) -> None:
        """Colour each stage's name and give it its formula (or why the stage does not
        apply) as tooltip: red the first stage that differs from A (`marked`), grey one that
        does not apply.

        Written from the config's settings, not its seed or values' arrays: a seed moved
        (most changes) leaves them as they were, and writing them again cost twenty
        step_text calls a change, with the step-through's tab hidden or not."""
        config = trace.config
        labelled = (
            i18n.language(),
            marked,
            [getattr(config, f.name) for f in fields(config) if f.name not in ("seed", "given")],
            [step.applies for step in trace.steps],
        )
        if labelled == self._labelled and config.given is self._given:
            return
        self._labelled, self._given = labelled, config.given
        for row, step in enumerate(trace.steps):
            colour = "#c0392b" if step.key == marked else "#111111"
            self.setTabTextColor(row, QColor(colour if step.applies else "#a0a0a0"))
            words = step_text(step)
            tip = words.formula if step.applies else words.reason
            self.setTabToolTip(row, f"{words.title}: {tip}")

    def choices(self, index: int) -> list[str]:
        """The tab's texts, longest first: its name, a shortened name, its number."""
        number, name = index + 1, self.names[index]
        texts = [f"{number} {name}"]
        if len(name) >= 7:
            texts.append(f"{number} {name[:4].rstrip(' ,')}…")
        texts.append(str(number))
        return texts

    def set_names(self, names: list[str]) -> None:
        """Name the tabs anew (the stages in another order), fitted as before."""
        if names == self.names:
            return
        self.names = names
        for index, name in enumerate(names):
            self.setTabText(index, f"{index + 1} {name}")
        self.fit()

    def _width(self, index: int, text: str) -> int:
        # Measured as QTabBar::tabSizeHint measures a tab's text (QFontMetrics::size, not the
        # advance, which differs by a pixel for some texts): a tab fitted again at the same
        # width then keeps its text.
        metrics = self.fontMetrics()
        mnemonic = Qt.TextFlag.TextShowMnemonic

        def wide(words: str) -> int:
            return metrics.size(mnemonic, words).width()

        frame = super().tabSizeHint(index).width() - wide(self.tabText(index))
        return frame + wide(text) + 1

    def fit(self) -> None:
        """Texts that fit the bar's width; called by the step-through on a resize and a new
        text size. (No Python overrides of the bar's virtual functions here: an override of
        minimumTabSizeHint or resizeEvent crashes a later QApplication.allWidgets().)"""
        least = sum(self._width(i, str(i + 1)) for i in range(self.count()))
        if least != self.minimumWidth():
            self.setMinimumWidth(least)  # the numbers alone
        if not self.isVisible():
            return  # its width is not the one it will be shown at: fitted when shown
        count = self.count()
        level = [0] * count
        widths = [self._width(i, self.choices(i)[0]) for i in range(count)]
        room = self.width()
        while sum(widths) > room:
            shorter = [i for i in range(count) if level[i] < len(self.choices(i)) - 1]
            if not shorter:
                break
            widest = max(shorter, key=lambda i: widths[i])
            level[widest] += 1
            widths[widest] = self._width(widest, self.choices(widest)[level[widest]])
        for i in range(count):
            text = self.choices(i)[level[i]]
            if text != self.tabText(i):
                self.setTabText(i, text)

"""Spin boxes that write numbers with a decimal point in every language, and that refuse an
out-of-range number in words instead of cutting it short.

A plain spin box writes numbers as the system's language does: "1,00" for the temperature on a
Vietnamese desktop, beside matrices, formulas and tutorials that all write 0.1. Every box here
writes and reads a decimal point, never a group separator, whatever the system's language;
a decimal comma typed out of habit ("0,5") is read as 0.5 and shown as 0.5.

A plain QSpinBox drops the keystroke that takes its text past the range: "5000" typed into a
box of 1 to 4096 becomes 500, "-1" into a seed becomes 1, silently. The `Range` boxes keep what
was typed until Enter or leaving the box, then restore the previous value and say why
(`refused`), as the embedding table does with a bad cell.
"""

from __future__ import annotations

from PySide6.QtCore import QLocale, Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QValidator
from PySide6.QtWidgets import QDoubleSpinBox, QSpinBox

from attn_explorer.ui.i18n import tr as _tr


def point_locale() -> QLocale:
    """The locale a number box writes and reads in: a decimal point, no group separators."""
    locale = QLocale.c()
    locale.setNumberOptions(
        QLocale.NumberOption.OmitGroupSeparator | QLocale.NumberOption.RejectGroupSeparator
    )
    return locale


class _DecimalPoint:
    """For a QSpinBox or QDoubleSpinBox: a decimal point whatever the system's language.

    First among a box's bases: what the others validate has its comma made a point already.
    """

    def init_decimal_point(self) -> None:
        self.setLocale(point_locale())

    def validate(self, text: str, pos: int) -> object:
        # No group separators are written or read, so a comma can only be a decimal comma.
        text = text.replace(",", ".")
        result = super().validate(text, pos)
        return result if isinstance(result, tuple) else (result, text, pos)

    def valueFromText(self, text: str) -> float:
        return super().valueFromText(text.replace(",", "."))


class PointSpinBox(_DecimalPoint, QSpinBox):
    """A QSpinBox that never writes a group separator (4096, not 4.096)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.init_decimal_point()


class PointDoubleSpinBox(_DecimalPoint, QDoubleSpinBox):
    """A QDoubleSpinBox that writes 0.50, not 0,50, in every language."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.init_decimal_point()


class _RefusesOutOfRange:
    """For a QSpinBox or QDoubleSpinBox: a number outside the range is typed, then refused."""

    refused: Signal

    def init_refusal(self, what: str) -> None:
        self._what = what  # "the valid length": the sentence's subject

    def _typed_number(self, text: str) -> float | None:
        """The number `text` spells in the box's locale, prefix and suffix aside, or None."""
        core = text.removeprefix(self.prefix()).removesuffix(self.suffix()).strip()
        value, ok = self.locale().toDouble(core)
        return value if ok else None

    def _sign_only(self, text: str) -> bool:
        """The minus of "-1" typed into a box of 0 and up: kept, so that -1 is refused whole
        rather than read as 1."""
        core = text.removeprefix(self.prefix()).removesuffix(self.suffix()).strip()
        return core in ("-", "+", self.locale().negativeSign(), self.locale().positiveSign())

    def _out_of_range(self, text: str) -> float | None:
        value = self._typed_number(text)
        if value is None or self.minimum() <= value <= self.maximum():
            return None
        return value

    def _too_precise(self, text: str) -> bool:
        """More decimals than the box holds (0.125 where it holds 0.12, a decimal point in a
        whole number): a plain box drops the keystroke, and 2.5 becomes 25."""
        value = self._typed_number(text)
        if value is None:
            return False
        if isinstance(self, QDoubleSpinBox):
            return round(value, self.decimals()) != value
        return self.locale().decimalPoint() in text or not value.is_integer()

    def validate(self, text: str, pos: int) -> object:
        result = super().validate(text, pos)
        state = result[0] if isinstance(result, tuple) else result
        if state == QValidator.State.Invalid and (
            self._out_of_range(text) is not None or self._sign_only(text) or self._too_precise(text)
        ):
            return (QValidator.State.Intermediate, text, pos)
        return result

    def _refuse_if_out_of_range(self) -> None:
        text = self.lineEdit().text()
        typed = text.removeprefix(self.prefix()).removesuffix(self.suffix()).strip()
        kept = self.textFromValue(self.value())
        if self._out_of_range(text) is not None:
            low, high = self.textFromValue(self.minimum()), self.textFromValue(self.maximum())
            message = _tr("{0} is outside {1} to {2}: {3} stays {4}.")
            message = message.format(typed, low, high, self._what, kept)
        elif self._too_precise(text) and isinstance(self, QDoubleSpinBox):
            message = _tr("{0} has more than {1} decimals: {2} stays {3}.")
            message = message.format(typed, self.decimals(), self._what, kept)
        elif self._too_precise(text):
            message = _tr("{0} is not a whole number: {1} stays {2}.")
            message = message.format(typed, self._what, kept)
        else:
            return
        self.lineEdit().setText(self.prefix() + kept + self.suffix())
        self.refused.emit(message)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._refuse_if_out_of_range()
        super().keyPressEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self._refuse_if_out_of_range()
        super().focusOutEvent(event)


class RangeSpinBox(_DecimalPoint, _RefusesOutOfRange, QSpinBox):
    refused = Signal(str)

    def __init__(self, what: str, parent=None) -> None:
        super().__init__(parent)
        self.init_decimal_point()
        self.init_refusal(what)


class RangeDoubleSpinBox(_DecimalPoint, _RefusesOutOfRange, QDoubleSpinBox):
    refused = Signal(str)

    def __init__(self, what: str, parent=None) -> None:
        super().__init__(parent)
        self.init_decimal_point()
        self.init_refusal(what)

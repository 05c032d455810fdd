"""A slider and a spin box editing one value."""

from __future__ import annotations

import math

from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import (
    QAbstractSlider,
    QDoubleSpinBox,
    QHBoxLayout,
    QSlider,
    QSpinBox,
    QStyle,
    QStyleOptionSlider,
    QWidget,
)

from attn_explorer.ui.widgets.range_spin import (
    PointDoubleSpinBox,
    PointSpinBox,
    RangeDoubleSpinBox,
    RangeSpinBox,
)


class HandleSlider(QSlider):
    """A slider repainted for a new value only where its handle moves.

    The seed's slider spans 10,000 values over about 180 pixels: most seed moves leave
    its handle, and so its pixels, where they are, yet Qt repainted it and, beneath it,
    the group box that holds it (0.7 M instructions a move). The handle's place is the
    one it was last painted at, so a move after a resize or a new style still repaints.
    """

    def __init__(self, orientation: Qt.Orientation) -> None:
        super().__init__(orientation)
        self._painted: QRect | None = None

    def _handle(self) -> QRect:
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        control = QStyle.ComplexControl.CC_Slider
        return self.style().subControlRect(control, option, QStyle.SubControl.SC_SliderHandle, self)

    def sliderChange(self, change: QAbstractSlider.SliderChange) -> None:
        if (
            change == QAbstractSlider.SliderChange.SliderValueChange
            and self._painted is not None
            and self._handle() == self._painted
        ):
            return  # the handle stays: every pixel of the slider stays
        super().sliderChange(change)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        self._painted = self._handle()


class SliderSpin(QWidget):
    """A slider paired with a spin box: drag, or type an exact value.

    Both edit one value; `valueChanged` fires once per change, whichever half made it. A
    float pair snaps to `step`; `log=True` spaces the slider logarithmically (temperature).
    """

    valueChanged = Signal(object)  # int for integer pairs, float otherwise

    def __init__(
        self,
        minimum: float,
        maximum: float,
        *,
        step: float = 1,
        decimals: int = 0,
        log: bool = False,
        what: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """`what` names the value in a sentence ("the number of heads"): a number typed
        outside the range is then kept until Enter and refused in words (`spin.refused`),
        where a plain box would cut "100" heads to 10 and "-1" to 1 without a word."""
        super().__init__(parent)
        self._min, self._max, self._step, self._log = minimum, maximum, step, log
        self._is_int = decimals == 0 and not log and float(step).is_integer()
        self.slider = HandleSlider(Qt.Orientation.Horizontal)
        if self._is_int:
            self.spin: QSpinBox | QDoubleSpinBox = (
                PointSpinBox() if what is None else RangeSpinBox(what)
            )
            self.spin.setRange(int(minimum), int(maximum))
            self.spin.setSingleStep(int(step))
        else:
            self.spin = PointDoubleSpinBox() if what is None else RangeDoubleSpinBox(what)
            self.spin.setDecimals(decimals)
            self.spin.setRange(minimum, maximum)
            self.spin.setSingleStep(step)
        self.spin.setKeyboardTracking(False)
        self.spin.setAccelerated(True)
        self.spin.setMinimumWidth(74)
        self.spin.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.slider.setRange(0, self._ticks())
        self.slider.setPageStep(max(1, self._ticks() // 10))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.spin)
        self.slider.valueChanged.connect(self._from_slider)
        self.spin.valueChanged.connect(self._from_spin)
        self.setFocusProxy(self.spin)

    def _ticks(self) -> int:
        if self._log:
            return 200
        return round((self._max - self._min) / self._step)

    def _to_tick(self, value: float) -> int:
        if self._log:
            span = math.log10(self._max) - math.log10(self._min)
            return round((math.log10(value) - math.log10(self._min)) / span * 200)
        return round((value - self._min) / self._step)

    def _from_tick(self, tick: int) -> float:
        if self._log:
            span = math.log10(self._max) - math.log10(self._min)
            value = 10 ** (math.log10(self._min) + tick / 200 * span)
            return round(value, self.spin.decimals())
        return self._min + tick * self._step

    def value(self) -> int | float:
        return self.spin.value()

    def setValue(self, value: float) -> None:
        """Show `value` without emitting valueChanged (for syncing from the document)."""
        if self.spin.value() == value and self.spin.cleanText() == self.spin.textFromValue(value):
            return  # re-setting repaints the box for nothing, on every control change
        # (A value typed and not entered leaves value() as it was: the box is set again, or
        # a file opened over "42" typed would still show 42 beside the file's 123.)
        self.spin.blockSignals(True)
        self.slider.blockSignals(True)
        self.spin.setValue(value)
        self.slider.setValue(self._to_tick(min(max(value, self._min), self._max)))
        self.spin.blockSignals(False)
        self.slider.blockSignals(False)

    def _from_slider(self, tick: int) -> None:
        value = self._from_tick(tick)
        value = round(value) if self._is_int else round(value, self.spin.decimals())
        self.spin.blockSignals(True)
        self.spin.setValue(value)
        self.spin.blockSignals(False)
        self.valueChanged.emit(self.spin.value())

    def _from_spin(self, value: float) -> None:
        self.slider.blockSignals(True)
        self.slider.setValue(self._to_tick(value))
        self.slider.blockSignals(False)
        self.valueChanged.emit(value)

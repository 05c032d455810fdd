"""A slider and spin box pair repaints its slider only where the slider's pixels change."""

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QImage

from attn_explorer.ui.widgets import SliderSpin


class Paints(QObject):
    def __init__(self, widget) -> None:
        super().__init__()
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def picture(widget) -> QImage:
    return widget.grab().toImage()


def test_a_new_value_repaints_the_slider_only_where_its_handle_moves(qtbot):
    """The seed's slider spans 10,000 values over about 180 pixels: a seed one further on
    leaves the handle where it is, and the slider is not repainted; a far seed moves it."""
    pair = SliderSpin(0, 9999, what="the seed")
    qtbot.addWidget(pair)
    pair.resize(260, 30)
    pair.show()
    qtbot.waitExposed(pair)
    pair.spin.setValue(1000)
    qtbot.wait(50)
    before = picture(pair.slider)  # (grab() paints the slider afresh)
    paints = Paints(pair.slider)
    pair.spin.setValue(1001)  # as typing or the arrows would
    qtbot.wait(50)
    assert paints.count == 0
    assert pair.slider.value() == 1001
    assert picture(pair.slider) == before  # what a repaint would have drawn
    paints.count = 0
    pair.spin.setValue(9000)
    qtbot.waitUntil(lambda: paints.count == 1, timeout=2_000)
    assert picture(pair.slider) != before
    # After a resize the handle is elsewhere: the next move repaints it again.
    pair.resize(400, 30)
    qtbot.wait(50)
    paints.count = 0
    pair.spin.setValue(4000)
    qtbot.waitUntil(lambda: paints.count == 1, timeout=2_000)
    paints.count = 0
    pair.spin.setValue(4001)
    qtbot.wait(50)
    assert paints.count == 0

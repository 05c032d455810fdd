"""Number boxes write and read a decimal point whatever the system's language: on a Vietnamese
desktop the temperature read "1,00" and p "0,00", beside matrices, formulas and tutorials that
all write 0.1."""

import pytest
from PySide6.QtCore import QLocale, Qt

from attn_explorer.ui.editing.controls import ControlsPanel
from attn_explorer.ui.widgets import SliderSpin
from tests.ui.desktop_locale import desktop_locale


@pytest.fixture
def vietnamese_desktop(qapp):
    """The system's number format as a Vietnamese desktop has it: 1.234,5."""
    with desktop_locale("vi_VN"):
        assert QLocale().toString(1234.5, "f", 1) == "1.234,5"
        yield


def type_into(qtbot, spin, text: str) -> None:
    """Select all of a spin box's text, type `text` and press Enter, as a user would."""
    spin.setFocus()
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), text)
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)


@pytest.fixture
def panel(vietnamese_desktop, vietnamese, qtbot, new_document):
    """The controls as a learner on a Vietnamese desktop reads them, in Vietnamese."""
    controls = ControlsPanel(new_document())
    qtbot.addWidget(controls)
    controls.show()
    return controls


def test_the_controls_write_a_decimal_point_and_no_group_separator(panel):
    panel.doc.set_control("dropout", 0.05)
    panel.doc.set_control("seed", 4096)
    assert panel.temperature.spin.text() == "1.00"
    assert panel.dropout.spin.text() == "0.05"
    assert panel.seed.spin.text() == "4096"


def test_a_decimal_comma_typed_is_read_and_shown_as_a_point(panel, qtbot):
    type_into(qtbot, panel.dropout.spin, "0,25")
    assert panel.doc.controls.dropout == 0.25
    assert panel.dropout.spin.text() == "0.25"
    type_into(qtbot, panel.temperature.spin, "2.5")
    assert panel.doc.controls.temperature == 2.5


def test_a_refusal_says_its_numbers_with_a_point_in_vietnamese(panel, qtbot):
    type_into(qtbot, panel.dropout.spin, "1,5")
    assert panel.errors["dropout"].text() == (
        "1.5 nằm ngoài khoảng 0.00 đến 0.90: xác suất dropout vẫn là 0.00."
    )
    type_into(qtbot, panel.dropout.spin, "0,125")
    assert panel.errors["dropout"].text() == (
        "0.125 có nhiều hơn 2 chữ số thập phân: xác suất dropout vẫn là 0.00."
    )
    assert panel.doc.controls.dropout == 0


def test_a_box_without_a_refusal_writes_a_point_too(vietnamese_desktop, qtbot):
    """The softmax panel's k: a slider box that names no value."""
    pair = SliderSpin(0.1, 10, step=0.01, decimals=2, log=True)
    qtbot.addWidget(pair)
    pair.setValue(1.5)
    assert pair.spin.text() == "1.50"
    type_into(qtbot, pair.spin, "2,25")
    assert pair.value() == 2.25
    assert pair.spin.text() == "2.25"

"""Hostile input typed into the controls, fed to the whole window: it stays up, says what
was wrong in words, and keeps the value it had. Every combination of the controls computes
or is explained."""

import itertools

import numpy as np
import pytest
from PySide6.QtCore import Qt

from attn_explorer.engine import compute
from tests.ui.conftest import STRICT_QT_LOG, assert_shows

pytestmark = STRICT_QT_LOG  # a Qt warning fails the test


def type_into(qtbot, spin, text: str) -> None:
    """Select all of a spin box's text, type `text` and press Enter, as a user would."""
    spin.setFocus()
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), text)
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)
    spin.clearFocus()  # leaving the box fixes up what was typed


UNREADABLE = ("abc", "nan", "inf", "-inf", "")


@pytest.mark.parametrize("text", [*UNREADABLE, "-5", "1e308", "99999999"])
@pytest.mark.parametrize("control", ["seed", "d_out", "heads", "dropout", "temperature"])
def test_a_control_refuses_what_it_cannot_hold(window, wait_settled, qtbot, control, text):
    pair = getattr(window.controls, control)
    field = {"heads": "num_heads"}.get(control, control)
    before = window.doc.controls
    type_into(qtbot, pair.spin, text)
    if text in UNREADABLE:
        assert pair.value() == getattr(before, field)  # refused: the value stays
    wait_settled(window)
    after = window.doc.controls
    assert getattr(after, field) == pytest.approx(pair.value())  # what is shown is what counts
    changed = {name for name in before.names() if getattr(before, name) != getattr(after, name)}
    assert changed <= {field}  # nothing else moved
    assert np.isfinite(window.trace.context).all()
    assert_shows(window)


def test_values_at_the_edge_of_float32_are_refused_by_the_engine_not_drawn(window, qtbot):
    model = window.doc.queries
    shown = window.trace
    for col in (1, 2, 3):
        assert model.setData(model.index(0, col), "3e38")
    qtbot.waitUntil(lambda: "overflowed float32" in window.status_text.text(), timeout=20_000)
    assert window.trace is shown
    assert model.data(model.index(0, 1)) == "3e+38"  # what was typed is kept, to be fixed


CHOICES = {
    "projection": ["none", "rand", "linear"],
    "head_layout": ["stacked", "split"],
    "num_heads": [1, 3, 4],
    "d_out": [1, 4, 6],
    "causal": [False, True],
    "cross": [False, True],
}


def set_controls(window, values: dict) -> None:
    c = window.controls
    c.projection.setCurrentIndex(c.projection.findData(values["projection"]))
    c.layout_box.setCurrentIndex(c.layout_box.findData(values["head_layout"]))
    c.heads.spin.setValue(values["num_heads"])
    c.d_out.spin.setValue(values["d_out"])
    c.causal.setChecked(values["causal"])
    c.cross.setChecked(values["cross"])


@pytest.mark.parametrize("projection", CHOICES["projection"])
def test_every_combination_of_controls_computes_or_is_explained(
    window, wait_settled, qtbot, projection
):
    """All 216 combinations, including every impossible one: each is drawn or explained.

    One test per projection, so that the 72 combinations of each run beside the others on
    the test workers instead of one test holding a worker for a quarter of the suite.
    """
    kv = window.doc.kv
    kv.remove_tokens([0, 1])  # four keys for six queries: causal cross-attention is impossible
    explained = 0
    choices = {**CHOICES, "projection": [projection]}
    for combo in itertools.product(*choices.values()):
        values = dict(zip(choices, combo, strict=True))
        set_controls(window, values)
        for name, value in values.items():
            assert getattr(window.doc.controls, name) == value  # no control moved another
        config = window.doc.config()
        problems = config.problems()
        if not problems:
            wait_settled(window)
            assert window.trace.config == config
            continue
        explained += 1
        qtbot.waitUntil(lambda p=problems: window.problems == p)
        assert window.status_text.text() == problems[0].message
        assert window.trace is not None and window.trace.config.problems() == []
        for problem in problems:
            label = window.controls.errors.get(problem.field)
            assert label is not None and problem.message in label.text()
            assert label.isVisible()
    assert explained > 15  # 54 without a projection, 30 with either
    # Back to a possible config: the error lines clear and the picture follows.
    possible = dict(projection="linear", head_layout="split", num_heads=3, d_out=6)
    set_controls(window, {**possible, "causal": False, "cross": True})
    wait_settled(window)
    assert all(not label.isVisible() for label in window.controls.errors.values())
    np.testing.assert_array_equal(window.trace.context, compute(window.doc.config()).context)


@pytest.mark.parametrize(
    ("text", "shown"),
    [("1e400", "1e400"), ("-2e999", "-2e999"), ("9" * 400, "9999999999999999999…")],
    ids=["1e400", "-2e999", "400 nines"],
)
def test_a_number_too_large_even_for_python_is_called_too_large_not_infinity(
    window, qtbot, text, shown
):
    """1e400 was refused with "Infinity is not allowed", which the learner never typed."""
    from tests.ui.editing.test_editor_widget import type_into_cell

    table = window.editor.query_table
    type_into_cell(qtbot, table, 2, 2, text)
    assert table.table.values[2, 1] == 0.85
    assert window.editor.error.text() == (
        f"{shown} is too large for float32 (at most about ±3.4e38). "
        "The previous value '0.85' is kept."
    )


@pytest.mark.parametrize("text", ["inf", "-Infinity", "+INF"])
def test_a_typed_infinity_is_still_called_infinity(window, qtbot, text):
    from tests.ui.editing.test_editor_widget import type_into_cell

    type_into_cell(qtbot, window.editor.query_table, 2, 2, text)
    assert window.editor.error.text().startswith("Infinity is not allowed: type a finite number.")


@pytest.mark.parametrize(
    ("spin", "switch", "text", "message"),
    [
        ("valid_len", "padding", "5000", "5000 is outside 1 to 4096: the valid length stays 6."),
        ("valid_len", "padding", "0", "0 is outside 1 to 4096: the valid length stays 6."),
        (
            "dropout_seed",
            "reseed_dropout",
            "-1",
            "-1 is outside 0 to 9999: the dropout seed stays 123.",
        ),
        (
            "dropout_seed",
            "reseed_dropout",
            "12345",
            "12345 is outside 0 to 9999: the dropout seed stays 123.",
        ),
        ("valid_len", "padding", "2.5", "2.5 is not a whole number: the valid length stays 6."),
    ],
    ids=["valid length 5000", "valid length 0", "seed -1", "seed 12345", "valid length 2.5"],
)
def test_a_whole_number_out_of_range_is_refused_not_cut_short(
    window, wait_settled, qtbot, spin, switch, text, message
):
    """The box dropped the keystroke that took it past its range: 5000 typed as the valid
    length became 500 (then "Valid length 500 is outside 1 to 6"), -1 as a seed became 1."""
    controls = window.controls
    controls.training.setChecked(True)
    controls.dropout.spin.setValue(0.5)
    getattr(controls, switch).setChecked(True)
    wait_settled(window)
    box = getattr(controls, spin)
    before = window.doc.controls
    type_into(qtbot, box, text)
    assert box.value() == getattr(before, spin)
    assert box.text() == str(getattr(before, spin))
    assert window.doc.controls == before
    assert controls.errors[spin].text() == message
    assert controls.errors[spin].isVisible()
    type_into(qtbot, box, "3")  # a number in range is taken, and the message goes
    wait_settled(window)
    assert getattr(window.doc.controls, spin) == 3
    assert not controls.errors[spin].isVisible()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0.95", "0.95 is outside 0.00 to 0.90: p stays 0.30."),
        ("1", "1 is outside 0.00 to 0.90: p stays 0.30."),
        ("-0.1", "-0.1 is outside 0.00 to 0.90: p stays 0.30."),
        ("0.125", "0.125 has more than 2 decimals: p stays 0.30."),
    ],
)
def test_a_decimal_box_refuses_a_number_out_of_range_in_words(qtbot, text, message):
    """RangeDoubleSpinBox, for a float control such as dropout p (0 to 0.9)."""
    from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

    from attn_explorer.ui.widgets.range_spin import RangeDoubleSpinBox

    holder = QWidget()
    qtbot.addWidget(holder)
    box = RangeDoubleSpinBox("p")
    box.setDecimals(2)
    box.setRange(0.0, 0.9)
    box.setValue(0.3)
    box.setKeyboardTracking(False)
    other = QLineEdit()
    layout = QVBoxLayout(holder)
    layout.addWidget(box)
    layout.addWidget(other)
    holder.show()
    said, values = [], []
    box.refused.connect(said.append)
    box.valueChanged.connect(values.append)
    type_into(qtbot, box, text)
    assert said == [message]
    assert values == [] and box.value() == 0.3 and box.text() == "0.30"


@pytest.mark.parametrize(
    ("control", "text", "message"),
    [
        ("heads", "100", "100 is outside 1 to 16: the number of heads stays 1."),
        ("d_out", "65", "65 is outside 1 to 64: d_out stays 2."),
        ("seed", "-1", "-1 is outside 0 to 9999: the seed stays 123."),
        ("seed", "10000", "10000 is outside 0 to 9999: the seed stays 123."),
        ("temperature", "0", "0 is outside 0.01 to 100.00: the temperature stays 1.00."),
        ("temperature", "1000", "1000 is outside 0.01 to 100.00: the temperature stays 1.00."),
        ("dropout", "0.95", "0.95 is outside 0.00 to 0.90: the dropout probability stays 0.00."),
        ("heads", "2.5", "2.5 is not a whole number: the number of heads stays 1."),
    ],
)
def test_a_slider_box_refuses_a_number_out_of_range_in_words(
    window, wait_settled, qtbot, control, text, message
):
    """The slider boxes cut what was typed short without a word: 100 heads became 10,
    d_out 65 became 6, seed -1 became 1, temperature 0 stayed 1.00 unexplained."""
    pair = getattr(window.controls, control)
    field = {"heads": "num_heads"}.get(control, control)
    before = window.doc.controls
    type_into(qtbot, pair.spin, text)
    wait_settled(window)
    assert window.doc.controls == before
    assert pair.spin.text() == pair.spin.textFromValue(getattr(before, field))
    assert window.controls.errors[field].text() == message
    assert window.controls.errors[field].isVisible()
    pair.spin.setValue(pair.spin.maximum() / 2)  # a number in range is taken; the message goes
    wait_settled(window)
    assert not window.controls.errors[field].isVisible()


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("scale", [1e-30, 1e-38, 1e-42])
def test_matrices_of_tiny_values_are_coloured_as_larger_ones(qapp, scale):
    """Scores near 1e-38 (embeddings near 1e-20) were coloured in float32 with a factor of
    255 / 2e-38, which is infinite there: every cell above the lowest took the top colour,
    and numpy printed overflow warnings. Tiny values take the colours that the same values
    relative to their scale's top take at an ordinary size."""
    from attn_explorer.ui.heatmap import MatrixPlot

    def colours(factor):
        plot = MatrixPlot()
        values = np.array([[-1.0, -0.5, 0.0, 0.5, 1.0]], np.float32) * np.float32(factor)
        plot.set_matrix(values, kind="signed")
        greens = [int(v) >> 8 & 0xFF for v in plot.image.image[0]]  # the green channel
        return greens, plot.levels[1]

    tiny, top = colours(scale)
    assert len(set(tiny)) == 5, tiny  # five values, five colours, ordered
    assert tiny[:2] == sorted(tiny[:2]) and tiny[3:] == sorted(tiny[3:], reverse=True)
    ordinary, ordinary_top = colours(scale / top)  # the same values relative to the top
    assert ordinary_top == 1.0
    assert np.abs(np.array(tiny) - np.array(ordinary)).max() <= 2, (tiny, ordinary)

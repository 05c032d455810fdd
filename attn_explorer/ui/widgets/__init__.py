"""Small reusable widgets, one module per kind; every name is importable from here."""

from attn_explorer.ui.widgets.buttons import ShrinkButton
from attn_explorer.ui.widgets.combo_boxes import (
    CommandBox,
    ElidingComboBox,
    HeadBox,
    choice_box,
    shrinkable,
)
from attn_explorer.ui.widgets.formula_text import FormulaText, formula_font
from attn_explorer.ui.widgets.labels import (
    ELLIPSIS,
    ElidedLabel,
    ErrorLabel,
    NoticeLabel,
    elide_words,
)
from attn_explorer.ui.widgets.range_spin import PointDoubleSpinBox, PointSpinBox
from attn_explorer.ui.widgets.slider_spin import SliderSpin

__all__ = [
    "ELLIPSIS",
    "CommandBox",
    "ElidedLabel",
    "ElidingComboBox",
    "ErrorLabel",
    "FormulaText",
    "HeadBox",
    "NoticeLabel",
    "PointDoubleSpinBox",
    "PointSpinBox",
    "ShrinkButton",
    "SliderSpin",
    "choice_box",
    "elide_words",
    "formula_font",
    "shrinkable",
]

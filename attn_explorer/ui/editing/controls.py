"""The control panel: every engine field as a widget, with problems explained in place.

Widgets only report edits to the document and re-show the document's values; they never
adjust one another. A control that does not matter in the current setting is disabled with a
tooltip saying why, but keeps its value.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from attn_explorer.engine import PRESETS, Preset, Problem
from attn_explorer.model.settings import SETTINGS
from attn_explorer.model.state import Controls
from attn_explorer.text.examples import example_text
from attn_explorer.text.i18n import N_
from attn_explorer.text.problems import problem_text
from attn_explorer.ui.editing.choice_labels import choices as _choices
from attn_explorer.ui.editing.document import Document
from attn_explorer.ui.editing.enabled_states import EnabledStates
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.widgets import CommandBox, ErrorLabel, SliderSpin, choice_box, shrinkable
from attn_explorer.ui.widgets.range_spin import RangeSpinBox

# The panel's widget (an attribute) for each control whose name is not the attribute's.
_NAMES = Controls.names()
_WIDGETS = {name: name for name in _NAMES} | {
    "num_heads": "heads",
    "head_layout": "layout_box",
    "ablate": "",  # the heads panel's (ui/compare), not this panel's
    "ablate_mode": "",
}


def _spin(field: str, what: str, **options: object) -> SliderSpin:
    """The slider and box of the number setting `field`: its range and decimals declared."""
    decimals = SETTINGS[field].decimals
    if decimals is not None:
        options["decimals"] = decimals
    return SliderSpin(*SETTINGS[field].range, what=what, **options)


class ControlsPanel(EnabledStates, QWidget):
    """Sliders, boxes and checkboxes for every field of the attention config."""

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        self.errors: dict[str, ErrorLabel] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)

        self.preset = CommandBox()
        self.preset.addItem(_tr("Load a tutorial example…"), None)
        for name in PRESETS:
            words = example_text(name)
            self.preset.addItem(words.title, name)
            self.preset.setItemData(
                self.preset.count() - 1, words.source, Qt.ItemDataRole.ToolTipRole
            )
        self.preset.setToolTip(self.EXAMPLES_TIP)
        shrinkable(self.preset, 16)  # its longest title alone would make the column 352 px wide
        layout.addWidget(self.preset)

        model = self._group(layout, _tr("Projection and heads"))
        self.seed = _spin("seed", _tr("the seed"))
        self._row(
            model,
            "seed",
            _tr("Seed"),
            self.seed,
            _tr(
                "torch.manual_seed(seed) right before the projections are built: seed 123 "
                "gives SelfAttention_v1's weights, 789 SelfAttention_v2's."
            ),
        )
        self.projection = choice_box(_choices("projection"))
        self._row(
            model,
            "projection",
            _tr("Projection"),
            self.projection,
            _tr(
                "none: Q = K = V = X, as in Day 43. rand: each W is torch.rand(d_in, d_out) "
                "(SelfAttention_v1). linear: each W is nn.Linear(d_in, d_out) "
                "(SelfAttention_v2, CausalAttention)."
            ),
        )
        self.d_out = _spin("d_out", _tr("d_out"))
        self._row(
            model,
            "d_out",
            _tr("d_out"),
            self.d_out,
            _tr(
                "Width of each projection W (d_in × d_out). With split heads, every head "
                "gets d_out / heads of it."
            ),
        )
        self.heads = _spin("num_heads", _tr("the number of heads"))
        self._row(
            model,
            "num_heads",
            _tr("Heads"),
            self.heads,
            _tr("Number of attention heads, each with its own queries, keys and values."),
        )
        self.layout_box = choice_box(_choices("head_layout"))
        self._row(
            model,
            "head_layout",
            _tr("Head layout"),
            self.layout_box,
            _tr(
                "stacked: independent heads of width d_out, outputs concatenated "
                "(MultiHeadAttentionWrapper). split: one projection of width d_out split "
                "into heads of d_out / heads (MultiHeadAttention)."
            ),
        )
        flags = QHBoxLayout()
        self.qkv_bias = QCheckBox(_tr("q/k/v bias"))
        self.out_proj = QCheckBox(_tr("Output projection"))
        flags.addWidget(self.qkv_bias)
        flags.addWidget(self.out_proj)
        model.addRow(flags)
        self._error(model, "qkv_bias")
        self._error(model, "out_proj")
        self.qkv_bias.setToolTip(
            _tr("Give the nn.Linear projections a bias (linear projection only).")
        )
        self.out_proj.setToolTip(
            _tr(
                "A final nn.Linear(width, width) with bias over the "
                "concatenated heads, as MultiHeadAttention's out_proj."
            )
        )

        scores = self._group(layout, _tr("Scores and softmax"))
        self.scale = QCheckBox(_tr("Divide by √d_k"))
        self.scale.setToolTip(
            _tr(
                "Scaled dot-product attention: divide the scores by the square "
                "root of a key's width, so that softmax does not saturate."
            )
        )
        scores.addRow(self.scale)
        self._error(scores, "scale")
        self.temperature = _spin("temperature", _tr("the temperature"), step=0.05, log=True)
        self._row(
            scores,
            "temperature",
            _tr("Temperature"),
            self.temperature,
            _tr(
                "Divide the scores further by T: T < 1 sharpens the weights toward one-hot, "
                "T > 1 flattens them toward uniform."
            ),
        )

        mask = self._group(layout, _tr("Mask"))
        self.causal = QCheckBox(_tr("Causal: hide later tokens"))
        self.causal.setToolTip(_tr("Query i may only attend to keys 1…i (decoder self-attention)."))
        mask.addRow(self.causal)
        self._error(mask, "causal")
        self.padding, self.valid_len = self._switched_number(
            mask,
            _tr("Padding: valid length"),
            "valid_len",
            _tr("the valid length"),
            _tr(
                "Keys at positions after the valid length are padding and are masked, as "
                "valid_lens in Dive into Deep Learning's multi-head attention."
            ),
        )
        self.mask_method = choice_box(_choices("mask_method"))
        self._row(
            mask,
            "mask_method",
            _tr("Method"),
            self.mask_method,
            _tr(
                "Method 2: fill hidden scores with −∞, then softmax. Method 1: softmax, "
                "zero the hidden weights, divide each row by its sum. Both give the same "
                "weights, as §3.5.1 of Build a Large Language Model (From Scratch) shows."
            ),
        )
        self.mask_before_scaling = QCheckBox(_tr("Mask the raw scores, then scale"))
        self.mask_before_scaling.setToolTip(
            _tr(
                "The order of Build a Large Language Model (From Scratch), chapter 3: masked = "
                "ω.masked_fill(mask, −∞), printed, then softmax(masked / √d_k). Off: divide by "
                "√d_k first, then mask, as Dive into Deep Learning does. The weights are the "
                "same; the matrix between the two stages is not."
            )
        )
        mask.addRow(self.mask_before_scaling)
        self._error(mask, "mask_before_scaling")

        drop = self._group(layout, _tr("Dropout"))
        self.dropout = _spin("dropout", _tr("the dropout probability"), step=0.05)
        self._row(
            drop,
            "dropout",
            _tr("p"),
            self.dropout,
            _tr(
                "Probability of dropping each attention weight while training; kept "
                "weights are multiplied by 1/(1 − p)."
            ),
        )
        # Not "(dropout active)": at p = 0 nothing is dropped, training mode or not.
        self.training = QCheckBox(_tr("Training mode: model.train()"))
        self.training.setToolTip(
            _tr(
                "On: dropout drops each weight with probability p, as in training. Off: "
                "evaluation mode, as after model.eval(): no dropout."
            )
        )
        drop.addRow(self.training)
        self._error(drop, "training")
        self.reseed_dropout, self.dropout_seed = self._switched_number(
            drop,
            _tr("Reseed first: seed"),
            "dropout_seed",
            _tr("the dropout seed"),
            _tr(
                "Draw the dropout mask right after torch.manual_seed(seed), as §3.5.2 of Build "
                "a Large Language Model (From Scratch) does before dropping the seed-789 "
                "weights. Off: the mask continues the random stream after the projections, as "
                "a module's forward pass does."
            ),
        )

        seq = self._group(layout, _tr("Sequences"))
        self.cross = QCheckBox(_tr("Cross-attention: K, V from Xₖᵥ"))
        self.cross.setToolTip(
            _tr(
                "Queries come from the first table, keys and values from a second sequence, "
                "the “Keys & values Xₖᵥ” table (encoder–decoder attention)."
            )
        )
        seq.addRow(self.cross)
        self._error(seq, "kv_tokens")
        self._error(seq, "kv_embeddings")
        self._error(seq, "other")
        layout.addStretch(1)

        self._shown: Controls | None = None  # what the widgets show (`sync`)
        self._connect()
        self.sync()
        self.doc.controlsChanged.connect(self.sync)

    EXAMPLES_TIP = N_("Replace tokens, embeddings and settings with a tutorial's example.")

    def show_example(self, example: Preset | None) -> None:
        """Name the example whose settings these are (None: an edit has left every one), so
        the box says which lesson is on screen; its tooltip has the lesson whole."""
        index = self.preset.findData(example.name) if example is not None else 0
        if self.preset.currentIndex() != index:
            self.preset.setCurrentIndex(index)
        tip = _tr(self.EXAMPLES_TIP)
        if example is not None:
            words = example_text(example.name)
            tip = _tr(
                "Loaded: {0}\n{1}\n\nAny edit that changes what is computed leaves the example; "
                "undoing it comes back to it.\n\n{2}"
            ).format(words.title, words.source, tip)
        self.preset.setToolTip(tip)

    # ------------------------------------------------------------------ building helpers
    def _group(self, layout: QVBoxLayout, title: str) -> QFormLayout:
        box = QGroupBox(title)
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(box)
        return form

    def _row(self, form: QFormLayout, field: str, label: str, widget: QWidget, tip: str) -> None:
        title = QLabel(label)
        title.setToolTip(tip)
        widget.setToolTip(tip)
        title.setBuddy(widget)
        form.addRow(title, widget)
        self._error(form, field)
        if isinstance(widget, SliderSpin) and hasattr(widget.spin, "refused"):
            widget.spin.refused.connect(self.errors[field].show_message)

    def _switched_number(
        self, form: QFormLayout, label: str, field: str, what: str, tip: str
    ) -> tuple[QCheckBox, QSpinBox]:
        """A checkbox and the whole number it switches on (kept while it is off), one row.
        A number typed outside its range is refused under the row (`what` names it)."""
        check = QCheckBox(label)
        spin = RangeSpinBox(what)
        spin.setRange(*SETTINGS[field].range)
        spin.setKeyboardTracking(False)
        row = QHBoxLayout()
        row.addWidget(check)
        row.addWidget(spin)
        row.addStretch(1)
        form.addRow(row)
        self._error(form, field)
        spin.refused.connect(self.errors[field].show_message)
        check.setToolTip(tip)
        spin.setToolTip(tip)
        return check, spin

    def _error(self, form: QFormLayout, field: str) -> None:
        label = ErrorLabel()
        form.addRow(label)
        self.errors[field] = label

    def _connect(self) -> None:
        set_control = self.doc.set_control
        self.seed.valueChanged.connect(lambda v: set_control("seed", int(v)))
        self.d_out.valueChanged.connect(lambda v: set_control("d_out", int(v)))
        self.heads.valueChanged.connect(lambda v: set_control("num_heads", int(v)))
        self.dropout.valueChanged.connect(lambda v: set_control("dropout", round(float(v), 4)))
        self.temperature.valueChanged.connect(
            lambda v: set_control("temperature", round(float(v), 4))
        )
        self.valid_len.valueChanged.connect(lambda v: set_control("valid_len", int(v)))
        self.dropout_seed.valueChanged.connect(lambda v: set_control("dropout_seed", int(v)))
        for box, field in (
            (self.projection, "projection"),
            (self.layout_box, "head_layout"),
            (self.mask_method, "mask_method"),
        ):
            box.currentIndexChanged.connect(
                lambda _i, b=box, f=field: set_control(f, b.currentData())
            )
        for check, field in (
            (self.qkv_bias, "qkv_bias"),
            (self.out_proj, "out_proj"),
            (self.scale, "scale"),
            (self.causal, "causal"),
            (self.padding, "padding"),
            (self.training, "training"),
            (self.cross, "cross"),
            (self.reseed_dropout, "reseed_dropout"),
            (self.mask_before_scaling, "mask_before_scaling"),
        ):
            check.toggled.connect(lambda on, f=field: set_control(f, bool(on)))

    # ------------------------------------------------------------------ showing the document
    def sync(self) -> None:
        """Show the document's controls (no signals back to it).

        Called on every change of the controls, up to a thousand a second (a dragged slider,
        a scripted sweep): a change of one control made by that control's own widget, which
        shows it already, costs only the enabled states, and those only when a control they
        depend on moved. Any other change (undo, a loaded file or example) sets every widget
        again, typed and not entered text included."""
        c = self.doc.controls
        shown, self._shown = self._shown, c
        if shown is not None:
            # Their fields' dicts, not getattr for each name: a third of the time.
            before = vars(shown)
            moved = [name for name, value in vars(c).items() if value != before[name]]
            if len(moved) == 1 and self._shows(moved[0], getattr(c, moved[0])):
                self._update_enabled()
                return
        self._set_every_widget(c)
        self._update_enabled()

    def _shows(self, name: str, value: object) -> bool:
        """Whether the widget of control `name` shows `value` (True for a control this panel
        has no widget for)."""
        widget = getattr(self, _WIDGETS.get(name, ""), None)
        if widget is None:
            return True
        if isinstance(widget, QCheckBox):
            return widget.isChecked() == value
        if isinstance(widget, QSpinBox | SliderSpin):
            return widget.value() == value
        return widget.currentData() == value

    def _set_every_widget(self, c: Controls) -> None:
        for spin, value in (
            (self.seed, c.seed),
            (self.d_out, c.d_out),
            (self.heads, c.num_heads),
            (self.dropout, c.dropout),
            (self.temperature, c.temperature),
        ):
            spin.setValue(value)
        widgets = [self.valid_len, self.projection, self.layout_box, self.mask_method]
        widgets += [self.qkv_bias, self.out_proj, self.scale, self.causal, self.padding]
        widgets += [self.training, self.cross, self.reseed_dropout, self.dropout_seed]
        widgets += [self.mask_before_scaling]
        for w in widgets:
            w.blockSignals(True)
        if self.valid_len.value() != c.valid_len:
            self.valid_len.setValue(c.valid_len)
        if self.dropout_seed.value() != c.dropout_seed:
            self.dropout_seed.setValue(c.dropout_seed)
        for box, value in (
            (self.projection, c.projection),
            (self.layout_box, c.head_layout),
            (self.mask_method, c.mask_method),
        ):
            if box.currentData() != value:
                box.setCurrentIndex(box.findData(value))
        for check, value in (
            (self.qkv_bias, c.qkv_bias),
            (self.out_proj, c.out_proj),
            (self.scale, c.scale),
            (self.causal, c.causal),
            (self.padding, c.padding),
            (self.training, c.training),
            (self.cross, c.cross),
            (self.reseed_dropout, c.reseed_dropout),
            (self.mask_before_scaling, c.mask_before_scaling),
        ):
            if check.isChecked() != value:
                check.setChecked(value)
        for w in widgets:
            w.blockSignals(False)

    def show_problems(self, problems: list[Problem]) -> None:
        """Show each problem under its control; clear the others."""
        by_field: dict[str, list[str]] = {}
        for problem in problems:
            target = problem.field if problem.field in self.errors else "other"
            if problem.field in ("tokens", "embeddings"):
                continue  # the embedding editor shows these
            by_field.setdefault(target, []).append(problem_text(problem))
        for field, label in self.errors.items():
            label.show_message("\n".join(by_field.get(field, [])))

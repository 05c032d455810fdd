"""Which controls are enabled, and why the others are not (in their tooltips).

The controls panel (`controls.py`) re-checks these on every change of the controls; they
depend on a few of them only, so a dragged seed, width or temperature leaves them alone.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from attn_explorer.engine.config import mask_order_matters, seed_draws
from attn_explorer.ui.i18n import tr as _tr


class EnabledStates:
    """The panel's part that enables and disables its widgets (a mixin of `ControlsPanel`,
    whose widgets and document it reads)."""

    _enabled_for: tuple | None = None  # what the enabled states were last set for

    def _update_enabled(self) -> None:
        c = self.doc.controls
        # What the states below read: a seed, a width or a temperature dragged leaves them.
        inputs = (
            c.projection,
            c.num_heads == 1,
            c.causal,
            c.padding,
            c.mask_method,
            c.scale,
            c.temperature == 1,
            c.training,
            c.dropout > 0,
            c.dropout == 0,
            c.reseed_dropout,
            c.out_proj,
        )
        if inputs == self._enabled_for:
            return
        self._enabled_for = inputs
        projected = c.projection != "none"
        self._enable(
            self.d_out,
            projected,
            _tr("With projection “none”, Q, K and V are X itself: there is no d_out."),
        )
        # Enabled while it is more than 1 with "none": the problem shown under it is fixed there.
        self._enable(
            self.heads,
            projected or c.num_heads != 1,
            _tr("With projection “none”, Q = K = V = X: there is one head."),
        )
        self._enable(self.layout_box, projected, _tr("With projection “none” there is one head."))
        self._enable(
            self.qkv_bias, c.projection == "linear", _tr("Only nn.Linear projections have a bias.")
        )
        self._enable(
            self.mask_method,
            c.causal or c.padding,
            _tr("No mask is active: the method only matters with a causal or padding mask."),
        )
        masked = c.causal or c.padding
        divided = c.scale or c.temperature != 1
        self._enable(
            self.mask_before_scaling,
            mask_order_matters(masked, c.mask_method, divided),
            _tr("No mask is active: there is nothing to mask before or after scaling.")
            if not masked
            else _tr(
                "Method 1 masks softmax's output, not the scores: the order of mask and "
                "scaling does not arise."
            )
            if c.mask_method != "neg_inf"
            else _tr("Nothing divides the scores (√d_k off, T = 1): there is no scaling."),
        )
        self._enable(
            self.valid_len, c.padding, _tr("Tick “Padding” to mask keys after this length.")
        )
        dropping = c.training and c.dropout > 0
        reseeded = dropping and c.reseed_dropout
        self._enable(
            self.seed,
            seed_draws(c.projection, c.out_proj, dropping, reseeded),
            _tr(
                "Nothing is drawn from this seed: with projection “none” there are no weights "
                "(and no output projection), and the dropout mask is drawn from its own seed "
                "(“Reseed first”)."
            )
            if reseeded
            else _tr(
                "Nothing is drawn at random: with projection “none” there are no weights "
                "(and no output projection), and no dropout acts."
            ),
        )
        self._enable(
            self.training,
            c.dropout > 0,
            _tr("p is 0: nothing is dropped, so training and evaluation mode compute the same."),
        )
        no_dropout = (  # p first: at p = 0 training mode is disabled too
            _tr("No dropout to reseed: p is 0.")
            if c.dropout == 0
            else _tr("No dropout to reseed: training mode is off.")
        )
        self._enable(self.reseed_dropout, dropping, no_dropout)
        self._enable(
            self.dropout_seed,
            dropping and c.reseed_dropout,
            no_dropout
            if not dropping
            else _tr("Tick “Reseed first” to draw the dropout mask from this seed."),
        )

    def _enable(self, widget: QWidget, enabled: bool, why: str) -> None:
        if widget.isEnabled() != enabled:
            widget.setEnabled(enabled)
        base = widget.property("baseTip")
        if base is None:
            base = widget.toolTip()
            widget.setProperty("baseTip", base)
        tip = base if enabled else _tr("{0}\n\nDisabled: {1}").format(base, why)
        if widget.toolTip() != tip:  # every move passes here: an unchanged tip costs an event
            widget.setToolTip(tip)

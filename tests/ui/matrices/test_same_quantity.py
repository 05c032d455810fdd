"""The stages drawn on one colour scale before and after: read from the engine's steps, as
the hand-written tables said them (copied literally here)."""

import pytest

from attn_explorer.engine import STEP_KEYS, compute
from attn_explorer.ui.matrices.trace_plots import same_quantity
from tests.ui.steps.test_stage_arrays import CONFIGS

TABLE = {
    "scale": ("scores", "scaled_scores"),
    "mask": ("scaled_scores", "masked_scores"),
    "dropout": ("weights", "weights_dropped"),
    "concat": ("head_contexts", "concat"),
}
MASK_FIRST_TABLE = {
    "mask": ("scores", "masked_scores"),
    "scale": ("masked_scores", "scaled_scores"),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_the_stages_of_one_quantity_are_the_tables(name):
    trace = compute(CONFIGS[name])
    for key in STEP_KEYS:
        if trace.config.mask_first and key in MASK_FIRST_TABLE:
            expected = MASK_FIRST_TABLE[key]
        else:
            expected = TABLE.get(key, ())
        assert same_quantity(trace, key) == expected, key

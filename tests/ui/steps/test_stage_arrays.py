"""What each stage figure shows: the arrays its step reads and writes, as the engine says them.

The figures read `Step.reads` / `Step.writes` (see ui/steps/stage_panels.py); these tests
hold them to a literal table of what each stage shows (compared over every preset and the
configurations that change a stage's arrays), and to the names written out for a few
configurations a learner opens.
"""

from dataclasses import replace

import pytest

from attn_explorer.engine import PRESETS, STEP_KEYS, AttentionConfig, compute, preset
from attn_explorer.ui.steps.stage_panels import MAX_CONCAT_HEADS, Panel, stage_panels

# What each stage shows, written out by hand: inputs, then outputs.
TABLE: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "embeddings": ((), ("x", "x_kv")),
    "projections": (("x", "x_kv", "w_query", "w_key", "w_value"), ("queries", "keys", "values")),
    "scores": (("queries", "keys"), ("scores",)),
    "scale": (("scores",), ("scaled_scores",)),
    "mask": (("scaled_scores", "mask"), ("masked_scores",)),
    "softmax": (("masked_scores",), ("weights_unmasked", "weights_zeroed", "weights")),
    "dropout": (("weights", "dropout_keep"), ("weights_dropped",)),
    "context": (("weights_dropped", "values"), ("head_contexts",)),
    "concat": (("head_contexts",), ("concat",)),
    "out_proj": (("concat", "w_out"), ("context",)),
}
MASK_FIRST_TABLE: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "mask": (("scores", "mask"), ("masked_scores",)),
    "scale": (("masked_scores",), ("scaled_scores",)),
    "softmax": (("scaled_scores",), ("weights",)),
}


def table_panels(trace, key: str, head: int) -> list[Panel]:
    """The panels the table gives: names missing from the trace left out, each head's Z
    drawn apart at the concat stage, no weights where nothing is projected."""
    table = MASK_FIRST_TABLE if trace.config.mask_first and key in MASK_FIRST_TABLE else TABLE
    inputs, outputs = table[key]
    panels: list[Panel] = []
    for names, output in ((inputs, False), (outputs, True)):
        for name in names:
            if name not in trace.arrays:
                continue
            if key == "concat" and not output and trace.heads > 1:
                heads = range(min(trace.heads, MAX_CONCAT_HEADS))
                panels += [Panel(name, h, output) for h in heads]
            else:
                panels.append(Panel(name, head, output))
    if key == "projections" and "w_query" not in trace.arrays:
        panels = [p for p in panels if p.output or p.name in ("x", "x_kv")]
    return panels


_journey = PRESETS["v2"].config
_cross = PRESETS["cross"].config
CONFIGS: dict[str, AttentionConfig] = {
    **{f"preset {name}": p.config for name, p in PRESETS.items()},
    "method 1, causal": replace(_journey, causal=True, mask_method="renormalize"),
    "method 1, padding, 2 heads": replace(
        _journey, valid_len=4, mask_method="renormalize", num_heads=2
    ),
    "mask first, temperature only": replace(
        _journey, causal=True, scale=False, temperature=2.0, mask_before_scaling=True
    ),
    "mask first asked, nothing divides": replace(
        _journey, causal=True, scale=False, mask_before_scaling=True
    ),
    "cross, no projection": replace(_cross, projection="none", out_proj=False, num_heads=1),
    "cross, padding, method 1, biases": replace(
        _cross, valid_len=3, mask_method="renormalize", qkv_bias=True
    ),
    "dropout 0.3": replace(_journey, dropout=0.3),
    "dropout, evaluation mode": replace(_journey, dropout=0.3, training=False),
    "dropout, reseeded, method 1": replace(
        _journey, dropout=0.5, dropout_seed=7, causal=True, mask_method="renormalize"
    ),
    "no projection, causal": replace(_journey, projection="none", causal=True),
    "rand projection, 3 heads": replace(_journey, projection="rand", num_heads=3),
    "ten heads, split": replace(_journey, num_heads=10, d_out=10, head_layout="split"),
    "nine heads, stacked": replace(_journey, num_heads=9),
    "out_proj with biases": replace(_journey, out_proj=True, qkv_bias=True),
    "out_proj, 2 heads, mask first": replace(
        _journey, out_proj=True, num_heads=2, causal=True, mask_before_scaling=True
    ),
}


@pytest.mark.parametrize("compare", [True, False], ids=["both methods", "own method"])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_every_stage_shows_what_the_table_showed(name, compare):
    trace = compute(CONFIGS[name], compare_mask_methods=compare)
    for key in STEP_KEYS:
        for head in range(min(trace.heads, 2)):
            assert stage_panels(trace, key, head) == table_panels(trace, key, head), (key, head)


def _shown(config: AttentionConfig) -> dict[str, tuple[list[str], list[str]]]:
    trace = compute(config)
    shown = {}
    for key in STEP_KEYS:
        panels = stage_panels(trace, key, 0)
        shown[key] = (
            [p.name for p in panels if not p.output],
            [p.name for p in panels if p.output],
        )
    return shown


def test_the_causal_example_masks_the_raw_scores_then_divides():
    assert _shown(preset("causal").config) == {
        "embeddings": ([], ["x"]),
        "projections": (["x", "w_query", "w_key", "w_value"], ["queries", "keys", "values"]),
        "scores": (["queries", "keys"], ["scores"]),
        "mask": (["scores", "mask"], ["masked_scores"]),
        "scale": (["masked_scores"], ["scaled_scores"]),
        "softmax": (["scaled_scores"], ["weights"]),
        "dropout": (["weights"], ["weights_dropped"]),
        "context": (["weights_dropped", "values"], ["head_contexts"]),
        "concat": (["head_contexts"], ["concat"]),
        "out_proj": (["concat"], ["context"]),
    }


def test_method_1_shows_its_own_steps_of_softmax_but_not_the_row_sums():
    config = replace(preset("v2").config, causal=True, mask_method="renormalize")
    shown = _shown(config)
    assert shown["mask"] == (["scaled_scores", "mask"], ["masked_scores"])
    assert shown["softmax"] == (
        ["masked_scores"],
        ["weights_unmasked", "weights_zeroed", "weights"],
    )


def test_biases_stay_out_of_the_projection_and_output_figures():
    config = replace(preset("cross").config, qkv_bias=True, out_proj=True)
    shown = _shown(config)
    assert shown["embeddings"] == ([], ["x", "x_kv"])
    assert shown["projections"] == (
        ["x", "x_kv", "w_query", "w_key", "w_value"],
        ["queries", "keys", "values"],
    )
    assert shown["out_proj"] == (["concat", "w_out"], ["context"])


def test_dropout_shows_its_keep_mask_and_no_projection_shows_no_weights():
    shown = _shown(replace(preset("simple").config, dropout=0.5))
    assert shown["projections"] == (["x"], ["queries", "keys", "values"])
    assert shown["dropout"] == (["weights", "dropout_keep"], ["weights_dropped"])
    assert shown["softmax"] == (["masked_scores"], ["weights"])


def test_the_heads_of_the_concat_stage_are_drawn_apart_up_to_eight():
    trace = compute(replace(preset("v2").config, num_heads=10))
    panels = stage_panels(trace, "concat", 3)
    assert [(p.name, p.head) for p in panels if not p.output] == [
        ("head_contexts", h) for h in range(MAX_CONCAT_HEADS)
    ]
    assert [(p.name, p.head) for p in panels if p.output] == [("concat", 3)]

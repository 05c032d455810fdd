"""What differs between A and B, in sentences a learner reads: the settings changed, the
first stage whose arrays differ, and each array's largest change and where it is.

The numbers are written with a decimal point in every language (`text.numbers.num`); the
settings are named as `--set` names them (d_out, scale, ablate), the words around them
translated.
"""

from __future__ import annotations

from attn_explorer.engine.compare import ArrayDiff, Comparison
from attn_explorer.engine.config import AttentionConfig
from attn_explorer.engine.trace import Trace
from attn_explorer.text.i18n import _, ngettext, pgettext
from attn_explorer.text.numbers import num
from attn_explorer.text.steps import step_text
from attn_explorer.text.titles import array_label

# Fields that are not settings but the learner's data, named in words.
_DATA_FIELDS = ("tokens", "embeddings", "kv_tokens", "kv_embeddings")


def setting_value(config: AttentionConfig, name: str) -> str:
    """A setting's value as the summary writes it: on/off, a number with a point, the heads
    switched off ("2, 3", or "none")."""
    value = getattr(config, name)
    if value is True:
        return pgettext("a setting's state", "on")
    if value is False or value is None:
        return pgettext("a setting's state", "off")
    if name == "ablate":
        return ", ".join(map(str, value)) if value else pgettext("heads switched off", "none")
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _data_word(name: str) -> str:
    return {
        "tokens": _("the query tokens"),
        "embeddings": _("the query embeddings"),
        "kv_tokens": _("the key/value tokens"),
        "kv_embeddings": _("the key/value embeddings"),
    }[name]


def settings_sentence(comparison: Comparison) -> str:
    """ "B changes scale (on → off) and seed (123 → 1)." or that no setting differs."""
    a, b = comparison.a.config, comparison.b.config
    parts = []
    for name in comparison.settings:
        if name in _DATA_FIELDS:
            parts.append(_data_word(name))
        else:
            parts.append(
                _("{setting} ({a} → {b})").format(
                    setting=name, a=setting_value(a, name), b=setting_value(b, name)
                )
            )
    if not parts:
        return _("A and B have the same settings and the same tokens.")
    return _("B changes {changes}.").format(changes=", ".join(parts))


def _shape(shape: tuple[int, ...] | None) -> str:
    return "×".join(map(str, shape)) if shape else "–"


def location(trace: Trace, name: str, where: tuple[int, ...]) -> str:
    """Where cell `where` of array `name` is, in words: its head, its row's token or
    number, its column's."""
    info = trace.info(name)
    index = list(where)
    parts = []
    if info.per_head and len(index) > (1 if info.rows is None else 2):
        parts.append(pgettext("where a cell is", "head {head}").format(head=index.pop(0) + 1))
    if info.rows is not None and len(index) == 2:
        labels = trace.axis_labels(info.rows, _)
        row = index.pop(0)
        label = labels[row] if row < len(labels) else str(row + 1)
        parts.append(pgettext("where a cell is", "row {row}").format(row=label))
    labels = trace.axis_labels(info.cols, _)
    col = index[0] if index else 0
    label = labels[col] if col < len(labels) else str(col + 1)
    parts.append(pgettext("where a cell is", "column {column}").format(column=label))
    return ", ".join(parts)


def array_sentence(comparison: Comparison, diff: ArrayDiff) -> str:
    """One array's difference: its largest change and where, or why it is not compared."""
    b = comparison.b if diff.shape_b is not None else comparison.a
    name = array_label(b.config, diff.name)[1]  # a title writes its symbol where it has one
    if diff.status == "only_a":
        return _("{array}: computed in A only.").format(array=name)
    if diff.status == "only_b":
        return _("{array}: computed in B only.").format(array=name)
    if diff.status == "not_comparable":
        return _("{array}: not comparable, {shape_a} in A and {shape_b} in B.").format(
            array=name, shape_a=_shape(diff.shape_a), shape_b=_shape(diff.shape_b)
        )
    parts = []
    if diff.where is not None:
        parts.append(
            _("largest change {value} at {where}").format(
                value=num(diff.largest), where=location(b, diff.name, diff.where)
            )
        )
    if diff.hidden:
        parts.append(
            ngettext(
                "{n} cell hidden on one side only",
                "{n} cells hidden on one side only",
                diff.hidden,
            ).format(n=diff.hidden)
        )
    if not parts:
        parts.append(_("no change"))
    said = "; ".join(parts)
    if diff.status == "shared":
        sentence = _(
            "{array}: {changes}, on the {shape} both have ({shape_a} in A, {shape_b} in B)."
        )
        return sentence.format(
            array=name,
            changes=said,
            shape=_shape(diff.diff.shape if diff.diff is not None else None),
            shape_a=_shape(diff.shape_a),
            shape_b=_shape(diff.shape_b),
        )
    return _("{array}: {changes}.").format(array=name, changes=said)


def first_stage_sentence(comparison: Comparison) -> str:
    if comparison.first_stage is None:
        return _("No stage differs: every array of B equals A's.")
    for trace in (comparison.b, comparison.a):
        for step in trace.steps:
            if step.key == comparison.first_stage:
                title = step_text(step).title
                return _("The first stage that differs is {stage}.").format(stage=title)
    return ""


def summary_lines(comparison: Comparison) -> list[str]:
    """The summary: the settings, the first stage that differs, then one line per array
    that differs, in computation order."""
    lines = [settings_sentence(comparison), first_stage_sentence(comparison)]
    unchanged = 0
    for diff in comparison.differing():
        if diff.status == "shared" and diff.where is None and not diff.hidden:
            unchanged += 1  # only its size differs: said once for all such arrays
        else:
            lines.append(array_sentence(comparison, diff))
    if unchanged:
        lines.append(
            ngettext(
                "{n} more array is equal on the tokens both have; only its size differs.",
                "{n} more arrays are equal on the tokens both have; only their sizes differ.",
                unchanged,
            ).format(n=unchanged)
        )
    return lines


def summary(comparison: Comparison) -> str:
    return "\n".join(summary_lines(comparison))

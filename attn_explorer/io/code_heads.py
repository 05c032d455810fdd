"""The heads switched off, in the exported PyTorch script: the tutorials' classes have no such
switch, so the script replaces each switched-off head's slice of the concatenated heads where
the engine does, before the output projection (a forward pre-hook on out_proj), or in the
output itself where there is none."""

from __future__ import annotations

from attn_explorer.engine.config import AttentionConfig
from attn_explorer.io.code_modules import comment
from attn_explorer.text.i18n import _


def switch_off_code(cfg: AttentionConfig) -> str:
    """The settings and the function that switch heads off ("" with every head on)."""
    if not cfg.ablate:
        return ""
    heads = comment(_("the heads switched off, counted from 1"))
    how = comment(_('"zeros" (as pruning does) or "mean" (its mean over the tokens)'))
    doc = _(
        "Each switched-off head's slice of the concatenated heads replaced: by zeros, or by "
        "its mean over the tokens."
    )
    return f'''
ABLATE = {list(cfg.ablate)!r}  {heads}
ABLATE_MODE = {cfg.ablate_mode!r}  {how}


def switch_off(concat):
    """{doc}"""
    width = concat.shape[-1] // NUM_HEADS
    concat = concat.clone()
    for number in ABLATE:
        part = concat[..., (number - 1) * width : number * width]
        part[...] = part.mean(dim=-2, keepdim=True) if ABLATE_MODE == "mean" else 0.0
    return concat
'''


def hook_code(cfg: AttentionConfig) -> str:
    """The lines of main() before the forward pass: a hook on out_proj, where there is one."""
    if not cfg.ablate:
        return ""
    said = comment(_("switch heads off before the output projection mixes them"))
    return (
        f'\n    out_proj = getattr(module, "out_proj", None)  {said}'
        "\n    if out_proj is not None:"
        "\n        out_proj.register_forward_pre_hook(lambda _m, args: (switch_off(args[0]),))"
    )


def output_code(cfg: AttentionConfig) -> str:
    """The line of main() after the forward pass: without out_proj, the output is the
    concatenation itself."""
    if not cfg.ablate:
        return ""
    return "\n    if out_proj is None:\n        context = switch_off(context)"

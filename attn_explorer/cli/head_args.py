"""Heads switched off on a command line: `--ablate 2,3` (the same as `--set ablate=2,3`), heads
counted from 1 as the window counts them."""

from __future__ import annotations

import argparse

from attn_explorer.cli.values import UsageError, brief, whole
from attn_explorer.engine.config import AttentionConfig
from attn_explorer.text.i18n import _


def allowed_heads(low: float, high: float) -> str:
    """What `--ablate` and `--set ablate=` take, for the message refusing a value."""
    return _("head numbers from {low} to {high} separated by commas, or none").format(
        low=f"{low:g}", high=f"{high:g}"
    )


def read_heads(text: str, low: float, high: float) -> tuple[object, str | None]:
    """`2,3` (or `none`) as head numbers, sorted, each once; or what is wrong (a phrase)."""
    if text.strip().lower() == "none":
        return (), None
    numbers = []
    for item in text.split(","):
        number = whole(item)
        shown = brief(item.strip())
        if number is None:
            return None, _("{value} is not a whole number").format(value=shown)
        if not low <= number <= high:
            return None, _("{value} is outside {low} to {high}").format(
                value=shown, low=f"{low:g}", high=f"{high:g}"
            )
        numbers.append(number)
    return tuple(sorted(set(numbers))), None


def add_ablate_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ablate",
        metavar=_("HEAD[,HEAD…]"),
        help=_(
            "switch these heads off, counted from 1 (--set ablate_mode=mean replaces each by "
            "its mean over the tokens instead of zeros); the same as --set ablate=HEAD[,HEAD…]"
        ),
    )


def ablate_change(
    args: argparse.Namespace, changes: dict[str, object], typed: dict[str, str], allowed: str
) -> None:
    """Add `--ablate`'s heads to the command's `changes` (`typed`: as given); `allowed` is
    what the setting takes, in words."""
    given = getattr(args, "ablate", None)
    if given is None:
        return
    if not given.strip():
        raise UsageError(
            _("{option}: no value given; {wanted}").format(
                option="--ablate", wanted=_("name the heads to switch off, e.g. --ablate 2")
            )
        )
    if "ablate" in changes:
        raise UsageError(_("give --ablate or --set ablate=…, not both"))
    from attn_explorer.model.settings import SETTINGS

    value, problem = read_heads(given.strip(), *SETTINGS["ablate"].range)
    if problem is not None:
        raise UsageError(
            _("--ablate: {problem}; allowed: {allowed}").format(problem=problem, allowed=allowed)
        )
    changes["ablate"] = value
    typed["ablate"] = given.strip()


def check_heads(config: AttentionConfig, changes: dict[str, object]) -> None:
    """Refuse heads the command switched off that the configuration does not have: the
    window keeps them (for more heads later), but given on a command line they are a
    mistake that would change nothing."""
    missing = [h for h in changes.get("ablate", ()) if h > config.heads]  # type: ignore[attr-defined]
    if missing:
        raise UsageError(
            _("--ablate: there is no head {head}; the heads are numbered 1 to {heads}").format(
                head=missing[0], heads=config.heads
            )
        )

"""Numbers as derivations write them: the UI's 4 decimals, and the operands of a division or
product written with as many digits as the shown result needs to hold to the shown digits."""

from __future__ import annotations

import math

from attn_explorer.text.i18n import _

MAX_TERMS = 8  # longer sums show their first terms, an ellipsis and the last term
# A no-break space: a long derivation wraps between its terms, never inside a term or a
# fraction such as "2.4556 / 16.3685".
NB = "\u00a0"


def num(value: float) -> str:
    """A number as the UI prints it: 4 decimals, or 4 significant digits when huge or tiny."""
    value = float(value)
    if math.isinf(value):
        return "−∞" if value < 0 else "∞"
    if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-4):
        return f"{value:.4g}"
    return f"{value:.4f}"


def operand(value: float) -> str:
    """A number that a shown division or product works from: 4 decimals where they hold 5
    significant digits, else 5 significant digits. 1.8524 / 0.1414 gives 13.1004, not the
    13.0983 written after it; with 0.14142 the shown division holds to the shown digits."""
    value = float(value)
    if not math.isfinite(value) or value == 0 or abs(value) >= 1:
        return num(value)
    usual, precise = num(value), f"{value:.5g}"
    return usual if float(usual) == float(precise) else precise  # 0.5000, not 0.5


def factor(value: float) -> str:
    text = num(value)
    return f"({text})" if value < 0 else text


def sum_of_products(pairs: list[tuple[float, float]]) -> str:
    # A negative factor is bracketed, "+ (-0.0264)×0.2216", as no sum writes "+ -0.0264".
    terms = [f"{factor(a) if k else num(a)}×{factor(b)}" for k, (a, b) in enumerate(pairs)]
    if len(terms) > MAX_TERMS:
        terms = [*terms[: MAX_TERMS - 2], "…", terms[-1]]
        return " + ".join(terms) + "  " + _("({count} terms)").format(count=len(pairs))
    return " + ".join(terms) if terms else "0"


def _digits(value: float, significant: int) -> str:
    return f"{value:.{significant}g}"


def division(
    a: float, b: float, value: float, first: tuple[str, str] | None = None
) -> tuple[str, str]:
    """The two numbers a shown division a / b = value works from: `first` (by default the
    score as its matrix shows it, 4 decimals, and b as `operand` writes it), unless their
    quotient would then miss the shown result; then one or both with a digit or two more.
    0.0760 / 0.5000 is not 0.1521, 0.076033 / 0.5000 is; 0.3200 / 1.7321 is not 0.1848,
    0.3200 / 1.73205 is; 1.0085 / 7.2010 is not 0.1401 to the digit, 1.00854 / 7.2010 is."""
    tries = [
        first or (num(a), operand(b)),
        (_digits(a, 5), operand(b)),
        (_digits(a, 6), operand(b)),
        (num(a), _digits(b, 6)),
        (_digits(a, 6), _digits(b, 6)),
        (_digits(a, 7), _digits(b, 7)),
    ]
    for x, y in tries:
        if float(y) != 0 and _holds(float(x) / float(y), value):
            return x, y
    return tries[0]


def _holds(quotient: float, value: float) -> bool:
    """Whether a shown quotient rounds to the shown value, as a learner rounds by hand (half
    up; a binary float's 0.14004999… for 0.14005 is no miss)."""
    shown = float(num(value))
    return abs(quotient - shown) <= 0.5e-4 * (1 + 1e-9) or num(quotient) == num(value)

"""Reading the numbers back out of a derivation that explain() wrote."""


def fraction(text: str) -> tuple[float, float, float]:
    """a, b and c of the first line's closing "… = a / b = c"."""
    parts = text.split("\n")[0].replace("\u00a0", " ").rsplit(" = ", 2)
    a, b = (float(x) for x in parts[1].split(" / "))
    return a, b, float(parts[2])

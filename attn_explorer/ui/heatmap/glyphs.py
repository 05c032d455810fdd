"""Glyph runs of cell values, cached per font.

On screen the values of every view are redrawn on every move; one glyph run per ink colour,
its glyphs placed from cached offsets, costs less than a drawText, or a glyph run, per cell
(see `CellTextItem.paint`).
"""

from __future__ import annotations

import sys
from array import array

from PySide6.QtGui import QFont, QRawFont

_SEPARATOR = "\n"
_UTF32 = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"  # no byte-order mark
assert array("I").itemsize == 4


class _Glyphs:
    """Glyph index and advance of each character, and where a cell value's glyphs go, for one
    font.

    Four-decimal values are new on every move, but their glyph positions are not: digits share
    one advance, so "0.1234" and "0.5678" differ only in glyph indexes. A value's shape is
    the value with each character replaced by the first character met of the same advance
    ("0.1234" and "0.5678" are both "0.0000" where the digits are as wide): its glyphs' offsets
    are those of its shape, computed once. Shapes and glyph indexes are made by `str.translate`
    over all the values of a matrix at once, not character by character in Python (a few
    hundred values on every move).
    """

    MAX_TEMPLATES = 1024  # distinct shapes; a few dozen in practice

    def __init__(self, font: QFont) -> None:
        self.raw = QRawFont.fromFont(font)
        self._known: dict[str, tuple[int, float] | None] = {}
        # Translation tables of the characters the font has (`of` fills them): to the
        # character of their glyph index, and to the first character of their advance.
        self._index: dict[int, str] = {}
        self._shape: dict[int, str] = {}
        self._of_advance: dict[float, str] = {}
        # By shape, the x offsets of its glyphs; None where the font lacks a character (a
        # character it lacks is in no table: it stays itself in the shape, which then names
        # that character).
        self._offsets: dict[str, tuple[float, ...] | None] = {}
        self.baseline = (self.raw.ascent() - self.raw.descent()) / 2

    def shapes(self, texts: list[str]) -> list[str]:
        """The shape of each of `texts` (see the class), in one `str.translate`."""
        shapes = _SEPARATOR.join(texts).translate(self._shape).split(_SEPARATOR)
        if len(shapes) != len(texts):  # a separator in a text, or one the tables translate
            shapes = [text.translate(self._shape) for text in texts]
        return shapes

    def offsets(self, text: str, shape: str) -> tuple[str, tuple[float, ...] | None]:
        """`text`'s shape (`shape`, given by `shapes`, as it is once the font's characters in
        `text` are known) and its glyphs' x offsets, centred on x = 0 (each glyph's
        baseline is `baseline` below the centre); None where the font lacks a character."""
        if shape in self._offsets:
            return shape, self._offsets[shape]
        shaped = self.of(text)
        shape = text.translate(self._shape)  # its characters known now
        offsets = None
        if shaped is not None:
            advances = [advance for _, advance in shaped]
            x = -sum(advances) / 2
            placed = []
            for advance in advances:
                placed.append(x)
                x += advance
            offsets = tuple(placed)
        if len(self._offsets) >= self.MAX_TEMPLATES:
            self._offsets.clear()
        self._offsets[shape] = offsets
        return shape, offsets

    def indexes(self, texts: str) -> array:
        """The glyph indexes of `texts`, every character of which the font has, as unsigned
        32-bit integers: the characters of their glyph indexes encoded in UTF-32 are those
        very integers. Qt converts an array of them for a glyph run in two thirds of the
        instructions of a list of Python ints (800 glyphs a seed move at 6 tokens)."""
        return array("I", texts.translate(self._index).encode(_UTF32, "surrogatepass"))

    def of(self, text: str) -> list[tuple[int, float]] | None:
        """The glyphs of `text`, or None if the font lacks one (Qt then picks a fallback font)."""
        known = self._known
        for char in text:
            if char not in known:
                known[char] = glyph = self._glyph(char)
                if glyph is not None:
                    index, advance = glyph
                    self._index[ord(char)] = chr(index)
                    self._shape[ord(char)] = self._of_advance.setdefault(advance, char)
        shaped = [known[char] for char in text]
        return None if None in shaped else shaped

    def _glyph(self, char: str) -> tuple[int, float] | None:
        indexes = self.raw.glyphIndexesForString(char)
        if len(indexes) == 1 and indexes[0] != 0:
            return indexes[0], self.raw.advancesForGlyphIndexes(indexes)[0].x()
        return None


_glyph_cache: dict[str, _Glyphs] = {}


def _glyphs_of(font: QFont) -> _Glyphs:
    key = font.key()
    if key not in _glyph_cache:
        _glyph_cache[key] = _Glyphs(font)
    return _glyph_cache[key]

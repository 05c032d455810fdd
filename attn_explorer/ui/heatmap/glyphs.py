"""Glyph runs of cell values, cached per font.

On screen the values of every view are redrawn on every move; one glyph run per ink colour,
its glyphs placed from cached offsets, costs less than a drawText, or a glyph run, per cell
(see `CellTextItem.paint`).
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QRawFont


class _Glyphs:
    """Glyph index and advance of each character, and where a cell value's glyphs go, for one
    font.

    Four-decimal values are new on every move, but their glyph positions are not: digits share
    one advance, so "0.1234" and "0.5678" differ only in glyph indexes. The offsets of a
    sequence of advances are computed once; the values of a whole matrix then go out as one
    glyph run per ink colour (see `CellTextItem._draw_glyph_runs`).
    """

    MAX_TEMPLATES = 1024  # distinct advance sequences; a few dozen in practice

    def __init__(self, font: QFont) -> None:
        self.raw = QRawFont.fromFont(font)
        self._known: dict[str, tuple[int, float] | None] = {}
        # The glyph index and advance of each character the font has (`of` fills them).
        self._index: dict[str, int] = {}
        self._advance: dict[str, float] = {}
        self._offsets: dict[tuple[float, ...], tuple[float, ...]] = {}  # by glyph advances
        self.baseline = (self.raw.ascent() - self.raw.descent()) / 2

    def place(self, text: str) -> tuple[tuple[int, ...], tuple[float, ...]] | None:
        """`text`'s glyphs and their x offsets, centred on x = 0 (each glyph's baseline is
        `baseline` below the centre), or None if the font lacks a character."""
        if not text:
            return None
        try:  # the characters met before, mapped in C: a few hundred values on every move
            glyphs = tuple(map(self._index.__getitem__, text))
        except KeyError:
            if self.of(text) is None:
                return None
            glyphs = tuple(map(self._index.__getitem__, text))
        return glyphs, self._offsets_of(tuple(map(self._advance.__getitem__, text)))

    def _offsets_of(self, advances: tuple[float, ...]) -> tuple[float, ...]:
        offsets = self._offsets.get(advances)
        if offsets is None:
            x = -sum(advances) / 2
            placed = []
            for advance in advances:
                placed.append(x)
                x += advance
            offsets = tuple(placed)
            if len(self._offsets) >= self.MAX_TEMPLATES:
                self._offsets.clear()
            self._offsets[advances] = offsets
        return offsets

    def of(self, text: str) -> list[tuple[int, float]] | None:
        """The glyphs of `text`, or None if the font lacks one (Qt then picks a fallback font)."""
        known = self._known
        for char in text:
            if char not in known:
                known[char] = glyph = self._glyph(char)
                if glyph is not None:
                    self._index[char], self._advance[char] = glyph
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

"""Glyph runs of cell values, cached per font.

On screen the values of every view are redrawn on every move; a glyph run built from a cached
template costs less than a drawText per cell (see `CellTextItem.paint`).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtGui import QFont, QGlyphRun, QRawFont


class _Glyphs:
    """Glyph index and advance of each character, and glyph runs of cell values, for one font.

    Four-decimal values are new on every move, but their glyph positions are not: digits share
    one advance, so "0.1234" and "0.5678" differ only in glyph indexes. A value's run is a copy
    of the template for its advances with its glyphs set, a third of the cost of building it.
    """

    MAX_TEMPLATES = 1024  # distinct advance sequences; a few dozen in practice

    def __init__(self, font: QFont) -> None:
        self.raw = QRawFont.fromFont(font)
        self._known: dict[str, tuple[int, float] | None] = {}
        self._templates: dict[tuple[float, ...], QGlyphRun] = {}  # by glyph advances
        self._baseline = (self.raw.ascent() - self.raw.descent()) / 2

    def run(self, text: str) -> QGlyphRun | None:
        """`text` as a glyph run centred on (0, 0), or None if the font lacks a character."""
        shaped = self.of(text)
        if not shaped:
            return None
        glyphs, advances = zip(*shaped, strict=True)
        run = QGlyphRun(self._template(advances))
        run.setGlyphIndexes(glyphs)
        return run

    def _template(self, advances: tuple[float, ...]) -> QGlyphRun:
        template = self._templates.get(advances)
        if template is None:
            x = -sum(advances) / 2
            positions = []
            for advance in advances:
                positions.append(QPointF(x, self._baseline))
                x += advance
            template = QGlyphRun()
            template.setRawFont(self.raw)
            template.setPositions(positions)
            if len(self._templates) >= self.MAX_TEMPLATES:
                self._templates.clear()
            self._templates[advances] = template
        return template

    def of(self, text: str) -> list[tuple[int, float]] | None:
        """The glyphs of `text`, or None if the font lacks one (Qt then picks a fallback font)."""
        known = self._known
        for char in text:
            if char not in known:
                known[char] = self._glyph(char)
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

"""Reading a worksheet's PDF back: its pages' text and, on its answer-key pages, the tables of
values, as a learner's printout would be read."""

from __future__ import annotations

import re
from pathlib import Path

import pypdf

NUMBER = re.compile(r"−∞|∞|-?\d+(\.\d+)?|True|False")


def page_texts(path: Path) -> list[str]:
    """Each page's text, its words separated by single spaces and its lines kept."""
    reader = pypdf.PdfReader(str(path))
    pages = []
    for page in reader.pages:
        lines = [" ".join(line.split()) for line in page.extract_text().split("\n")]
        pages.append("\n".join(line for line in lines if line))
    return pages


def exercises(path: Path) -> dict[int, dict[str, list[str]]]:
    """{seed: {"sheet": its exercise pages' lines, "key": its key pages' lines}}, found by
    the footer each page begins with ("attn_explorer · Answer key: Exercise 1 of 3, seed 7")."""
    found: dict[int, dict[str, list[str]]] = {}
    for text in page_texts(path):
        lines = text.split("\n")
        footer = lines[0]
        seed = int(re.search(r"seed (\d+)", footer).group(1))
        part = "key" if "Answer key" in footer or "Đáp án" in footer else "sheet"
        found.setdefault(seed, {"sheet": [], "key": []})[part] += lines[1:]
    return found


def tables(lines: list[str], rows: tuple[str, ...], cols: tuple[str, ...]) -> list[list[list[str]]]:
    """Every table in `lines` of these row and column labels, in the order printed: its
    values row by row, as the PDF holds them (a label's line, then one line per value)."""
    found = []
    width = len(cols)
    for start in range(len(lines)):
        if tuple(lines[start : start + width]) != cols:
            continue
        at = start + width
        values = []
        for label in rows:
            if at >= len(lines) or lines[at] != label:
                break
            row = lines[at + 1 : at + 1 + width]
            if not all(NUMBER.fullmatch(v) for v in row):
                break
            values.append(row)
            at += 1 + width
        if len(values) == len(rows):
            found.append(values)
    return found

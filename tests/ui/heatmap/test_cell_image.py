"""The cells drawn at device resolution are the very pixels Qt's own scaling writes."""

import os
import random
import subprocess
import sys

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter, QTransform

from attn_explorer.ui.heatmap import MatrixView
from attn_explorer.ui.heatmap.cell_image import CellImage, device_grid

PREMULTIPLIED = QImage.Format.Format_ARGB32_Premultiplied


def _cells(rng: random.Random, rows: int, cols: int, hidden: bool) -> np.ndarray:
    argb = np.array([0xFF000000 | rng.getrandbits(24) for _ in range(rows * cols)], np.uint32)
    if hidden:  # masked cells are transparent
        argb[[rng.random() < 0.3 for _ in range(rows * cols)]] = 0
    return argb.reshape(rows, cols)


def _painted(argb, transform, antialiased, clip, fast, destination):
    """The picture `drawImage(rect, image)` paints under `transform`, or (`fast`) the
    device pixels of `device_grid` blitted unscaled."""
    image = QImage(420, 380, destination)
    image.fill(QColor("#e8e8e8"))
    rows, cols = argb.shape
    rect = QRectF(0, 0, cols, rows)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, antialiased)
    if clip is not None:
        painter.setClipRect(clip)
    if fast:
        place, xs, ys = device_grid(argb.shape, rect, transform, antialiased, clip)
        pixels = np.ascontiguousarray(argb.take(xs, axis=1).take(ys, axis=0))
        if pixels.size:
            height, width = pixels.shape
            painter.drawImage(place, QImage(pixels.data, width, height, 4 * width, PREMULTIPLIED))
    else:
        source = QImage(argb.data, cols, rows, 4 * cols, PREMULTIPLIED)
        painter.setTransform(transform)
        painter.drawImage(rect, source)
    painter.end()
    return image


@pytest.mark.parametrize("seed", range(4))
def test_cells_at_device_resolution_are_the_pixels_qt_scales_them_to(qapp, seed):
    """Qt's nearest-neighbour scaling walks each row in 16.16 fixed point and, for an
    aliased painter, first rounds the target's edges; any slip would move a cell's edge by a
    pixel (it did: an aliased view's last column, a clip that starts inside the cells)."""
    rng = random.Random(seed)
    for case in range(150):
        rows, cols = rng.randint(1, 12), rng.randint(1, 12)
        big = case % 15 == 0
        if big:  # a pooled 1024-token matrix, shrunk or stretched a little
            rows, cols = rng.randint(100, 512), rng.randint(100, 512)
        argb = _cells(rng, rows, cols, hidden=case % 3 == 0)
        low, high = (0.2, 2.0) if big else (0.3, 80.0)
        transform = QTransform(
            rng.uniform(low, high), 0, 0, rng.uniform(low, high), rng.uniform(0, 60),
            rng.uniform(0, 60),
        )  # fmt: skip
        clip = None
        if case % 4 < 2:
            clip = QRectF(*(rng.uniform(0, 40) for _ in range(2)), rng.uniform(100, 400), 300.7)
        antialiased = case % 2 == 0
        destination = PREMULTIPLIED if case % 5 else QImage.Format.Format_RGB32
        expected = _painted(argb, transform, antialiased, clip, False, destination)
        got = _painted(argb, transform, antialiased, clip, True, destination)
        assert got == expected, (case, argb.shape, transform, antialiased, clip)


@pytest.mark.parametrize("size", [(420, 360), (391, 435), (253, 290), (1000, 700)])
@pytest.mark.parametrize("masked", [False, True])
def test_a_view_paints_the_same_pixels_as_with_qts_scaling(qtbot, monkeypatch, size, masked):
    view = MatrixView()
    qtbot.addWidget(view)
    view.resize(*size)
    _blitted_as_qt_scales(qtbot, monkeypatch, view, masked, view, view.viewport().grab)


def test_a_scaled_screen_keeps_qts_own_scaling(qtbot, monkeypatch):
    """At 200 % the device has two pixels for each of the painter's: the cells are scaled
    by Qt, which puts their edges on device pixels, never blitted from the logical grid
    (that put a cell's edge one device pixel off)."""
    view = MatrixView()
    qtbot.addWidget(view)
    view.resize(420, 360)
    values = np.random.default_rng(7).normal(size=(6, 6)).astype(np.float32)
    view.plot.set_matrix(values, kind="signed", rows="abcdef", cols="uvwxyz")
    view.show()
    qtbot.waitExposed(view)
    blits = []
    blit = CellImage._blit
    monkeypatch.setattr(CellImage, "_blit", lambda *a: blits.append(blit(*a)) or blits[-1])
    viewport = view.viewport()
    pictures = []
    for ratio in (1.0, 2.0):
        size = viewport.size() * ratio
        image = QImage(size.width(), size.height(), QImage.Format.Format_ARGB32_Premultiplied)
        image.setDevicePixelRatio(ratio)
        image.fill(0)
        viewport.render(image)
        pictures.append(len(blits))
    assert pictures == [1, 1]  # blitted on the plain device only


@pytest.mark.parametrize("masked", [False, True])
def test_a_view_inside_a_window_blits_its_cells_where_qt_would_scale_them(
    qtbot, monkeypatch, masked
):
    """In a window Qt paints every widget into the window's one backing store: the
    painter's device transform is its own moved by where the view sits. The cells are still
    blitted (they were not: a seed move scaled six views' cells, 2.9 M instructions), and
    land on the very pixels Qt's scaling writes."""
    from PySide6.QtWidgets import QWidget

    window = QWidget()
    qtbot.addWidget(window)
    window.resize(500, 460)
    view = MatrixView(window)
    view.setGeometry(37, 23, 391, 405)
    _blitted_as_qt_scales(qtbot, monkeypatch, view, masked, window, window.grab)


def _blitted_as_qt_scales(qtbot, monkeypatch, view, masked, shown, grab) -> None:
    """`view` given a 6 x 6 matrix and `shown` shown: its cells are blitted, once, and the
    pixels `grab` reads are those of Qt's own scaling."""
    values = np.random.default_rng(7).normal(size=(6, 6)).astype(np.float32)
    hidden = np.triu(np.ones((6, 6), bool), 1) if masked else None
    view.plot.set_matrix(values, kind="signed", rows="abcdef", cols="uvwxyz", hidden=hidden)
    shown.show()
    qtbot.waitExposed(shown)
    blits = []
    blit = CellImage._blit
    monkeypatch.setattr(CellImage, "_blit", lambda *a: blits.append(blit(*a)) or blits[-1])
    fast = grab().toImage()
    assert blits == [True]  # drawn at device resolution
    monkeypatch.setattr(CellImage, "_blit", lambda *a: False)
    view.plot.image.update()
    assert fast == grab().toImage()


# The garbage collector's order that took a test worker down: an unreachable plot's attributes
# cleared first, then its PlotItem's, then its view's; the last lets go of pyqtgraph's child
# group, which Python owns although it has a parent, and deleting it deletes the cells.
FREED_FROM_THE_MIDDLE = """
import gc
from PySide6.QtWidgets import QApplication
app = QApplication([])
from attn_explorer.ui.heatmap.plot import MatrixPlot
gc.disable()
plot = MatrixPlot()
inner, view = plot.plot, plot.view
vars(plot).clear()
del plot
vars(inner).clear()
vars(view).clear()
print("whole")
"""


def test_a_plot_freed_from_its_middle_does_not_take_the_process_down():
    # Run apart: the failure this guards against is a segmentation fault. The cells must not
    # hold the last reference to their plot, which would then be deleted inside its own
    # deletion.
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-c", FREED_FROM_THE_MIDDLE],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (result.returncode, result.stdout.strip()) == (0, "whole"), result.stderr[-2000:]

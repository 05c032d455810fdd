"""The floor under the 6-token latency: what repainting six views costs with nothing of the app.

Issue 29 asks for a seed move at 6 tokens to reach the screen within 8.3 ms (p95). A move
repaints six views of the Matrices board (the mask does not change). This script repaints
six views of the same sizes as the board's at 1500 × 940 with the least each way of drawing
can do, no engine, no text, no axes, and prints how long that takes on this machine:

- `qt`: six plain QWidgets, each drawing a new 6 × 6 image scaled to its size (the pixels
  alone: what any Qt window pays);
- `pyqtgraph blit`: six pyqtgraph GraphicsViews, each a ViewBox holding one item that blits
  a new 6 × 6 image (what one item in a pyqtgraph view adds: the scene, the view box);
- `pyqtgraph image`: the same with pyqtgraph's own ImageItem and `setImage`;
- `pyqtgraph plot`: a PlotItem with its title and two token axes around the ImageItem, as
  each of the app's views has.

Each repaint is timed from the new images to the last view's paint event, through a real
event loop (the thread sleeps in Qt between them). Figures are printed, never asserted.
Run: `python -m benchmarks.floor [--moves 60] [--load N]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

# (width, height) of the six views a seed move repaints at 6 tokens, in the default window at
# 1500 × 940: scores and weights, then the query, key and value projections and the context.
VIEW_SIZES = ((391, 435), (391, 435), (251, 290), (251, 290), (252, 290), (352, 290))
TOKENS = 6
TOKEN_TEXTS = ("Your", "journey", "starts", "with", "one", "step")


def _blit_item_class():
    import pyqtgraph as pg
    from PySide6.QtCore import QRectF

    class Blit(pg.GraphicsObject):
        """One item drawing one image over the cells' rectangle, and nothing else."""

        image = None

        def boundingRect(self) -> QRectF:
            return QRectF(0, 0, TOKENS, TOKENS)

        def paint(self, painter, *args) -> None:
            if self.image is not None:
                painter.drawImage(QRectF(0, 0, TOKENS, TOKENS), self.image)

    return Blit


def _image(rng, keep: list):
    """A new TOKENS × TOKENS RGBA image; `keep` holds its memory while Qt reads it."""
    import numpy as np
    from PySide6.QtGui import QImage

    pixels = (rng.random((TOKENS, TOKENS, 4)) * 255).astype(np.uint8)
    pixels[..., 3] = 255
    keep.append(pixels)
    return QImage(pixels.data, TOKENS, TOKENS, 4 * TOKENS, QImage.Format.Format_RGBA8888)


def _build(kind: str):
    """The six views of `kind`, and a function that gives each a new picture."""
    import pyqtgraph as pg
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QPainter
    from PySide6.QtWidgets import QWidget

    views, updates = [], []
    if kind == "qt":

        class Plain(QWidget):
            image = None

            def paintEvent(self, event) -> None:
                painter = QPainter(self)
                if self.image is not None:
                    painter.drawImage(self.rect(), self.image)
                painter.end()

        for _ in VIEW_SIZES:
            view = Plain()
            view.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
            views.append(view)

            def update(rng, keep, view=view):
                view.image = _image(rng, keep)
                view.update()

            updates.append(update)
        return views, [view for view in views], updates
    blit = _blit_item_class()
    for _ in VIEW_SIZES:
        view = pg.GraphicsView(background="w")
        if kind == "pyqtgraph plot":
            plot = pg.PlotItem(title="Attention scores ω", enableMenu=False)
            plot.hideButtons()
            plot.showAxis("top")
            plot.hideAxis("bottom")
            ticks = [list(enumerate(TOKEN_TEXTS))]
            plot.getAxis("top").setTicks(ticks)
            plot.getAxis("left").setTicks(ticks)
            plot.getViewBox().invertY(True)
            box = plot
        else:
            box = pg.ViewBox(enableMenu=False)
        view.setCentralItem(box)
        if kind == "pyqtgraph blit":
            item = blit()
            box.addItem(item)

            def update(rng, keep, item=item):
                item.image = _image(rng, keep)
                item.update()

        else:
            item = pg.ImageItem(axisOrder="row-major")
            box.addItem(item)

            def update(rng, keep, item=item):
                item.setImage(rng.random((TOKENS, TOKENS)), levels=(0.0, 1.0))

        views.append(view)
        updates.append(update)
    return views, [view.viewport() for view in views], updates


def measure(kind: str, moves: int) -> dict:
    """p50 and p95 of `moves` repaints of the six views (after ten of warm-up), and the
    process's CPU a repaint."""
    import numpy as np
    from PySide6.QtCore import QEvent, QEventLoop, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QHBoxLayout, QVBoxLayout, QWidget

    app = QApplication.instance()
    window = QWidget()
    rows = QVBoxLayout(window)
    top, bottom = QHBoxLayout(), QHBoxLayout()
    rows.addLayout(top)
    rows.addLayout(bottom)
    views, painted, updates = _build(kind)
    for i, (view, (width, height)) in enumerate(zip(views, VIEW_SIZES, strict=True)):
        view.setFixedSize(width, height)
        (top if i < 2 else bottom).addWidget(view)
    window.resize(1500, 940)
    window.show()
    pending: set = set()
    loop: list = [None]

    class Painted(QObject):
        def eventFilter(self, obj, event) -> bool:
            if event.type() == QEvent.Type.Paint and obj in pending:
                pending.discard(obj)
                if not pending and loop[0] is not None:
                    loop[0].quit()
            return False

    watcher = Painted()
    for widget in painted:
        widget.installEventFilter(watcher)
    for _ in range(20):
        app.processEvents()
    rng, keep, times = np.random.default_rng(0), [], []
    cpu_start = time.process_time()
    for move in range(moves + 10):
        if move == 10:
            cpu_start = time.process_time()
        start = time.perf_counter()
        pending.update(painted)
        for update in updates:
            update(rng, keep)
        loop[0] = QEventLoop()
        QTimer.singleShot(10_000, loop[0].quit)
        loop[0].exec()
        loop[0] = None
        del keep[: -2 * len(updates)]
        if move >= 10:
            times.append((time.perf_counter() - start) * 1e3)
    cpu_ms = (time.process_time() - cpu_start) / moves * 1e3
    window.close()
    times.sort()
    return {
        "kind": kind,
        "p50_ms": statistics.median(times),
        "p95_ms": times[min(len(times) - 1, round(0.95 * (len(times) - 1)))],
        "cpu_ms": cpu_ms,
    }


KINDS = ("qt", "pyqtgraph blit", "pyqtgraph image", "pyqtgraph plot")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=60, help="repaints timed per kind")
    parser.add_argument("--load", type=int, default=0, help="N plain CPU loops running too")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from attn_explorer.ui.app import configure_pyqtgraph
    from benchmarks.load import busy

    app = QApplication.instance() or QApplication([])
    configure_pyqtgraph()
    print(
        f"Six views of the 6-token board's sizes repainted, {args.moves} times each "
        f"(platform {app.platformName()}, load {args.load}, host load average "
        f"{os.getloadavg()[0]:.2f}); the target for the whole move is 8.3 ms p95."
    )
    print(f"{'views':<18}{'p50 ms':>8}{'p95 ms':>8}{'CPU ms':>8}")
    with busy(args.load):
        for kind in KINDS:
            row = measure(kind, args.moves)
            print(f"{kind:<18}{row['p50_ms']:8.1f}{row['p95_ms']:8.1f}{row['cpu_ms']:8.1f}")


if __name__ == "__main__":
    main()

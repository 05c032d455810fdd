"""A number cell of the embedding table is described for painting in one call: it paints
pixel for pixel as Qt's own description from the model's roles would."""

import numpy as np
from PySide6.QtCore import QItemSelection, QItemSelectionModel
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QStyledItemDelegate

from attn_explorer.engine.given import ArrayRows
from attn_explorer.model.state import TokenSequence
from attn_explorer.ui.editing.embedding_editor import EmbeddingTable
from attn_explorer.ui.editing.embedding_model import EmbeddingTableModel


def _table(qtbot, delegate=None):
    rng = np.random.default_rng(0)
    values = rng.normal(size=(40, 30)) * 10.0 ** rng.integers(-8, 8, size=(40, 30))
    values[3, 2], values[4, 4], values[5, 5] = -0.0, 1e30, 0.0
    tokens = tuple(f"tok\t{i}" if i % 7 == 0 else f"t{i}" for i in range(40))
    model = EmbeddingTableModel(QUndoStack(), "queries")
    model.restore(TokenSequence(tokens, ArrayRows.of(values)))
    view = EmbeddingTable(model)
    qtbot.addWidget(view)
    if delegate is not None:
        view.setItemDelegate(delegate)
    view.resize(640, 360)
    view.show()
    selection = QItemSelection()
    selection.select(model.index(2, 1), model.index(4, 3))
    view.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
    view.selectionModel().setCurrentIndex(
        model.index(3, 2), QItemSelectionModel.SelectionFlag.NoUpdate
    )
    qtbot.waitExposed(view)
    return view


def test_number_cells_paint_as_qts_own_description_of_them(qtbot):
    ours = _table(qtbot).grab().toImage()
    plain = QStyledItemDelegate()
    theirs = _table(qtbot, plain).grab().toImage()
    assert ours.size() == theirs.size()
    assert ours == theirs

"""The worked lines follow the chosen cell: a click, or the arrows, on any (query, key) cell
of a stage writes that cell's arithmetic with its real numbers (they only ever wrote the
first column's)."""

from PySide6.QtCore import Qt

from attn_explorer.engine import compute


def last_line(steps) -> str:
    return steps.followed.text().replace("\u00a0", " ").split("\n")[-1]


def test_a_clicked_cell_is_worked_out_at_its_stage_and_the_next(window, steps):
    steps.set_stage("softmax")
    assert last_line(steps).startswith("α[2,1] = exp(ω̃ₘ[2,1])")
    scores = steps.figure.plots[0]
    scores.cellClicked.emit(2, 1)  # "starts" × "journey"
    assert steps.followed.text().startswith("Following query 3 “starts”:")
    assert last_line(steps) == (
        "α[3,2] = exp(ω̃ₘ[3,2]) / Σⱼ' exp(ω̃ₘ[3,j']) = exp(0.1840) / (exp(0.1179) + "
        "exp(0.1840) + exp(0.1822)) = 1.2020 / 3.5270 = 0.3408"
    )
    weights = compute(window.doc.config()).weights[0, 2]
    assert f"{weights[1]:.4f}" == "0.3408"
    steps.set_stage("scores")  # the same key, at the stage before
    assert last_line(steps).startswith("ω[3,2] = q3·k2 = ")
    assert last_line(steps).endswith(" = 0.2602")
    steps.set_stage("context")  # Z's columns count features, not keys: its first
    assert last_line(steps).startswith("z3[1] = Σⱼ α[3,j]·vⱼ[1] = 0.3190×(-0.4519)")


def test_the_arrows_move_the_worked_cell(window, steps, qtbot):
    steps.set_stage("softmax")
    steps.setFocus()
    qtbot.keyClick(steps, Qt.Key.Key_Down)  # "journey" → "starts"
    qtbot.keyClick(steps, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    assert steps.stage == "softmax"  # Shift+→ moves the cell, not the stage
    assert steps.query == 2 and window.board.query == 2
    assert last_line(steps).startswith("α[3,2] = ")
    assert last_line(steps).endswith(" = 0.3408")
    for _ in range(9):  # kept within the matrix
        qtbot.keyClick(steps, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    assert last_line(steps) == (
        "α[3,6] = 0: hidden, because key 6 comes after query 3 (causal mask)."
    )


def test_a_query_chosen_elsewhere_works_out_its_first_cell(window, steps):
    steps.set_stage("scores")
    steps.figure.plots[-1].cellClicked.emit(3, 2)
    assert last_line(steps).startswith("ω[4,3] = q4·k3 = ")
    window.board.views["weights"].plot.cellClicked.emit(4, 0)  # on the Matrices tab's
    assert last_line(steps).startswith("ω[5,1] = q5·k1 = ")

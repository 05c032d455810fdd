"""The verdicts of "Check my numbers" on the step-through's matrices, as on the Matrices tab:
they were drawn on the Matrices tab only."""

from .test_dialog import open_on_happy, paste_day_43


def test_day_43s_verdicts_are_outlined_on_the_stage(window, stepped_window, qtbot, wait_settled):
    dialog = open_on_happy(window, qtbot, wait_settled)
    paste_day_43(dialog, qtbot)
    marks = window.menus.check_marks
    window.show_tab(1)
    steps = window.stepper
    steps.set_stage("softmax")
    qtbot.waitUntil(lambda: marks.stage_marked() != [])
    marked = set(marks.stage_marked())
    # Its softmax rows of "am" and "happy" are its slips; the first row is right.
    assert {m for m in marked if m[3] == "wrong"} == {
        ("weights", r, c, "wrong") for r in (1, 2) for c in range(3)
    }
    assert {("weights", 0, c, "right") for c in range(3)} <= marked
    assert {m[0] for m in marked} == {"weights"}  # the scores were not given
    steps.set_stage("out_proj")  # the context: its rows follow from the slips
    qtbot.waitUntil(lambda: {m[0] for m in marks.stage_marked()} == {"context"})
    assert {m for m in marks.stage_marked() if m[3] == "follows"} == {
        ("context", r, c, "follows") for r in (1, 2) for c in range(3)
    }
    steps.set_stage("scores")  # nothing checked there
    qtbot.waitUntil(lambda: marks.stage_marked() == [])
    steps.set_stage("softmax")
    qtbot.waitUntil(lambda: marks.stage_marked() != [])
    # A new configuration is checked again: its exact values changed, the first row too.
    window.doc.set_control("scale", False)
    wait_settled(window)
    qtbot.waitUntil(lambda: ("weights", 0, 0, "right") not in marks.stage_marked())
    assert marks.stage_marked() == [m for m in marks.stage_marked() if m[0] == "weights"]
    dialog.close()
    assert marks.stage_marked() == [] and marks.marked() == []

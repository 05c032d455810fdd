"""What the window can show, declared once: its tabs and the arrays each matrix choice offers.

Sessions are checked against these (a session pointing anywhere else would reopen on
nothing) and the window builds its tabs and choice boxes from them, in this order.
"""

from __future__ import annotations

TABS = ("matrices", "steps")
# The arrays the all-heads grid can show, in the order of its choice box.
HEADS_ARRAYS = (
    "weights",
    "weights_dropped",
    "masked_scores",
    "scaled_scores",
    "scores",
    "queries",
    "keys",
    "values",
    "head_contexts",
)
# The scores the Matrices tab shows: as fed to softmax, scaled, or raw.
SCORES_ARRAYS = ("masked_scores", "scaled_scores", "scores")
# The weights the Matrices tab shows: the softmax weights, or the weights after dropout.
WEIGHTS_ARRAYS = ("weights", "weights_dropped")

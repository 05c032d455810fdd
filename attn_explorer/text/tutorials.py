"""The tutorials the app teaches from, named as their learners know them, in one place.

Every sentence that cites a tutorial (an example's lesson, a skipped stage's reason, a data
file's note, a Help → Lessons list) takes its name from here, in the current language: a
learner finds "Build a Large Language Model (From Scratch), chapter 3" on the shelf, never a
number of ours. The keys are the code's own handles and are never shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from attn_explorer.text.i18n import N_, _


@dataclass(frozen=True)
class Tutorial:
    """`name` is how a sentence cites the tutorial, `title` its whole title, as a list of the
    lessons shows it; both marked only (`N_`), translated where shown."""

    name: str
    title: str


TUTORIALS: dict[str, Tutorial] = {
    # Sebastian Raschka's book, chapter 3 in Vietnamese, sections 3.3.1 to 3.6.2.
    "llm": Tutorial(
        N_("Build a Large Language Model (From Scratch), chapter 3"),
        N_(
            "Build a Large Language Model (From Scratch), chapter 3: "
            "Implementing attention mechanisms"
        ),
    ),
    # A notebook that redoes the book's §3.4.1 for x^(2).
    "notebook": Tutorial(
        N_("the step-by-step notebook on trainable weights (§3.4.1)"),
        N_("Step-by-step notebook on trainable weights (§3.4.1)"),
    ),
    # The multi-head attention section of d2l, Vietnamese edition ("Chú ý nhiều đầu").
    "d2l": Tutorial(
        N_("Dive into Deep Learning, Multi-head attention"),
        N_("Dive into Deep Learning: Multi-head attention"),
    ),
    # A day of a course: scaled dot-product attention by hand on "I am happy".
    "day43": Tutorial(
        N_("Day 43 – A deeper look at scaled dot-product attention"),
        N_("Day 43 – A deeper look at scaled dot-product attention"),
    ),
    # A blog post: Q, K, V, softmax saturation, the kinds of attention in a transformer.
    "blog": Tutorial(N_("Self-Attention (blog)"), N_("Self-Attention (blog)")),
}


def tutorial(key: str, section: str = "") -> str:
    """The name of tutorial `key` (of `TUTORIALS`) in the current language, as a sentence cites
    it; with `section`, that part of it: tutorial("llm", "§3.5.3 CausalAttention") is "Build
    a Large Language Model (From Scratch), chapter 3 (§3.5.3 CausalAttention)". A section is
    a number and code names, written alike in every language."""
    name = _(TUTORIALS[key].name)
    if not section:
        return name
    return _("{tutorial} ({section})").format(tutorial=name, section=section)


def tutorial_title(key: str) -> str:
    """The whole title of tutorial `key` in the current language, as a list of lessons shows it."""
    return _(TUTORIALS[key].title)

"""Every check says what it judges: its docstring and its feedback name the kind (structure, forbidden words,
contradictions), and a check that leaves an idea to the learner shows the reference answer and two rubric lines."""
from __future__ import annotations

import pytest

from atlas_kit.course.checks._registry import BLANK, Compare, Feedback, Finding
from atlas_kit.course.checks import EXERCISES, check
from atlas_kit.course.checks.run import _load
from atlas_kit.course.checks._registry import KINDS, Exercise, exercise

_load()


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_the_docstring_says_what_the_check_judges(key):
    ex = EXERCISES[key]
    doc = ex.grade.__doc__ or ""
    assert doc.startswith("Structure:"), (key, doc)
    for kind in ex.judges:
        assert {"structure": "Structure:", "forbidden": "Forbidden:", "contradiction": "Contradiction:"}[kind] in doc
    assert ("Not judged:" in doc) == (ex.compare is not None), (key, doc)


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_a_refusal_of_nonsense_starts_with_its_kind(key):
    message = check(key, object()).message
    assert message.startswith(("Structure: ", "Forbidden: ", "Contradiction: ")), (key, message)


def test_what_is_left_to_the_learner_has_a_reference_and_two_rubric_lines():
    compared = {k: ex.compare for k, ex in EXERCISES.items() if ex.compare is not None}
    assert compared, "no check leaves an idea to the learner"
    assert all(c.reference and c.unjudged and len(c.rubric) == 2 and all(c.rubric) for c in compared.values())


def test_a_pass_names_what_was_judged_and_what_was_not():
    ex = Exercise("t", lambda a: None, "All fields right.", (), ("structure", "contradiction"),
                  Compare("whether the reason is given", "The reference.", ("One?", "Two?")))
    fb = ex.said(None)
    assert fb.ok and fb.message.startswith("Structure and contradictions: right. All fields right. Not judged: whether")
    assert fb.reference == "The reference." and fb.rubric == ("One?", "Two?")
    assert repr(fb).splitlines()[1:] == ["  reference: The reference.", "  1. One?", "  2. Two?"]
    assert "<i>The reference.</i>" in fb._repr_html_()
    assert ex.said(Finding("forbidden", "the text repeats 'x'.")).message == "Forbidden: the text repeats 'x'."
    assert ex.said("The code is wrong.").message == "Structure: The code is wrong."
    assert ex.said(BLANK).message == BLANK


def test_a_plain_feedback_prints_one_line():
    assert repr(Feedback("01.1", False, "Structure: no next.")) == "✗ Exercise 01.1: Structure: no next."


def test_an_exercise_must_say_what_it_judges():
    with pytest.raises(ValueError, match="judges must name what the check decides"):
        exercise("99.1", "t", right="r", judges=())(lambda a: None)
    with pytest.raises(ValueError, match="judges must name"):
        exercise("99.2", "t", right="r", judges=("vibes",))(lambda a: None)  # type: ignore[arg-type]
    assert "99.1" not in EXERCISES and "99.2" not in EXERCISES and set(KINDS) == {"structure", "forbidden", "contradiction"}

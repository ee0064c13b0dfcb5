"""Issue 30: a secret the grader removed from the kernel's environment never reaches the report, not even the
piece of it that survives when a note is shortened mid-secret (17 of a password's 27 characters once did)."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from atlas_kit.contract.redaction import PIECE, redact_known
from atlas_kit.course.grading.classroom import _scrub
from atlas_kit.course.grading.execute import _clip
from atlas_kit.course.grading.records import ExerciseResult, Grade

PASSWORD = "Tr0ub4dor&3-horse-battery9"  # 26 characters, none of them key-shaped to redact()'s patterns


def _grade(note: str, message: str) -> Grade:
    return Grade("Ada", "02_four_branches.ipynb", "02", "errors", {"02.1": ExerciseResult("wrong", message)},
                 [note], 1, 0.1)


def test_a_note_cut_in_the_middle_of_a_password_keeps_none_of_it():
    note = _clip("code cell 3 raised (first: KeyError: " + "x" * 150 + PASSWORD + ")", 200)
    assert PASSWORD[:10] in note and PASSWORD not in note  # the cut kept a piece, as the grader's notes do
    scrubbed = _scrub(_grade(note, f"You returned {PASSWORD[:-5]}"), (PASSWORD,))
    text = " ".join(scrubbed.notes) + scrubbed.results["02.1"].message
    assert "[redacted]" in text
    assert not any(PASSWORD[i:i + PIECE] in text for i in range(len(PASSWORD) - PIECE + 1)), text


def test_text_that_shares_no_piece_with_a_secret_is_left_as_it_is():
    text = "the check of 02.1 did not finish; Tr0 and horse are short words"
    assert redact_known(text, (PASSWORD,)) == text
    assert redact_known(text, ()) == text


@given(secret=st.text(alphabet=st.characters(codec="ascii", categories=("L", "N", "P")), min_size=PIECE, max_size=40),
       before=st.text(max_size=30), after=st.text(max_size=30), cut=st.integers(min_value=0, max_value=40),
       from_start=st.booleans())
def test_no_piece_of_a_secret_survives_wherever_it_was_cut(secret, before, after, cut, from_start):
    shown = secret[cut:] if from_start else secret[: len(secret) - cut]
    out = redact_known(before + shown + after, (secret,))
    assert not any(secret[i:i + PIECE] in out.replace("[redacted]", "\0")
                   for i in range(len(secret) - PIECE + 1)), out

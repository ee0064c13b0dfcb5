"""The wording checks measured on their data sets (scripts/measure_checks.py): no correct paraphrase is rejected,
no wrong answer a rule can decide is accepted, and every wrong idea that passes is passed as "Not judged", with
the reference answer and a rubric. The figures the script prints are computed here, so they stay true."""
from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

import pytest

from atlas_kit.course.checks import EXERCISES, _load

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import measure_checks  # noqa: E402

HOLDOUT = ROOT / "tests" / "data" / "check_wording_holdout.json"
CLAIMS = ROOT / "tests" / "data" / "check_claims_holdout.json"  # issue 51: written before the claim reader


@lru_cache(maxsize=None)
def outcomes(path: Path = measure_checks.DATA) -> tuple[measure_checks.Outcome, ...]:
    return tuple(measure_checks.measure(measure_checks.load(path)))


def test_every_wording_exercise_has_five_paraphrases_and_five_wrong_answers():
    _load()
    counts = {key: [0, 0] for key in measure_checks.BUILD}
    for o in outcomes():
        counts[o.answer["exercise"]][o.answer["expect"] == "wrong"] += 1
    assert set(counts) <= set(EXERCISES)
    assert all(right >= 5 and wrong >= 5 for right, wrong in counts.values()), counts


@pytest.mark.parametrize("path", [measure_checks.DATA, HOLDOUT, CLAIMS], ids=["set", "holdout", "claims"])
def test_no_correct_paraphrase_is_rejected(path):
    rejected = [(o.answer, o.feedback.message) for o in outcomes(path) if o.false_reject]
    assert not rejected, rejected


def test_no_wrong_answer_a_rule_decides_is_accepted():
    accepted = [o.answer for o in outcomes() if o.false_accept and o.answer["kind"] in measure_checks.DECIDED]
    assert not accepted, accepted


def test_on_the_holdout_only_the_known_wrong_answers_are_accepted():
    accepted = {o.answer.get("message", "") for o in outcomes(HOLDOUT) if o.false_accept}
    known = {o.answer.get("message", "") for o in outcomes(HOLDOUT) if "known" in o.answer}
    assert accepted == known


def test_on_the_claims_holdout_every_contradiction_and_false_success_is_refused_as_one():
    """Each wrong answer of the claims holdout contradicts itself or its structure, or announces a success the error
    refused: every one is refused, and the feedback says it judged a contradiction."""
    wrong = [o for o in outcomes(CLAIMS) if o.answer["expect"] == "wrong"]
    assert len(wrong) >= 50 and {o.answer["claim"] for o in wrong} >= {"retry_stop", "retry_same", "retry_pointless",
                                                                         "silent_tell", "false_success"}
    missed = [(o.answer, o.feedback.message) for o in wrong if not o.feedback.message.startswith("Contradiction: ")]
    assert not missed, missed


def test_every_free_text_exercise_is_in_the_claims_holdout_with_right_and_wrong_answers():
    counts = {key: [0, 0] for key in measure_checks.BUILD}
    for o in outcomes(CLAIMS):
        counts[o.answer["exercise"]][o.answer["expect"] == "wrong"] += 1
    assert all(right >= 2 and wrong >= 2 for right, wrong in counts.values()), counts


def test_a_wrong_idea_that_passes_is_passed_as_not_judged_with_the_reference():
    ideas = [o for o in outcomes() if o.false_accept]
    assert ideas and all(o.answer["kind"] == "idea" for o in ideas)
    assert all(o.not_judged and o.feedback.reference and len(o.feedback.rubric) == 2 for o in ideas)


def test_every_refusal_says_which_kind_of_judgement_it_is():
    refused = [o.feedback.message for o in outcomes() if not o.feedback.ok]
    assert refused and all(m.startswith(("Structure: ", "Contradiction: ", "Forbidden: ")) for m in refused), refused


def test_the_printed_table_is_the_measured_one(capsys):
    assert measure_checks.main([]) == 0
    printed = capsys.readouterr().out.splitlines()
    rows = measure_checks.table(list(outcomes()))
    assert printed[2:-1] == [" | ".join(map(str, r)) for r in rows]
    assert printed[-1].split(" | ")[:3] == ["all", str(sum(r[1] for r in rows)), str(sum(r[2] for r in rows))]


def test_a_bad_entry_is_refused_with_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"answers": [{"exercise": "01.1", "expect": "wrong"}]}')
    with pytest.raises(ValueError, match="say which: structure, forbidden, contradiction or idea"):
        measure_checks.load(bad)

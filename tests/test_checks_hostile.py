"""The exercise checks against a careless or mischievous learner: an answer that only says it is equal is not right,
code that never returns is stopped and said, exit() and a forgotten return are said for what they are, a raising
call_tool is one line. Each case was found by calling the checks as a learner's cell would."""
from __future__ import annotations

import time

import pytest

import atlas_kit.course.checks.run as checks_run
from atlas_kit.course.checks._registry import BLANK
from atlas_kit.course.checks import check


class AlwaysEqual:
    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    def lower(self) -> AlwaysEqual:
        return self

    __hash__ = None  # type: ignore[assignment]


class Lying(str):
    def strip(self, *chars: object) -> AlwaysEqual:  # type: ignore[override]
        return AlwaysEqual()


def test_an_answer_that_only_says_it_is_equal_is_not_right():
    assert not check("06.1", lambda history: AlwaysEqual()).ok
    assert not check("00.2", {k: Lying("?") for k in "abcdef"}).ok
    for correct in (True, False):
        report = {"stop_reason": Lying("?"), "correct": correct, "failed_tool": Lying("?"), "error_code": Lying("?"),
                  "balance": Lying("?")}
        assert not check("00.1", report).ok


@pytest.mark.parametrize("key", ["06.1", "04.1", "11.1", "13.1"])
def test_code_that_never_returns_is_stopped_and_said(monkeypatch, key):
    monkeypatch.setattr(checks_run, "CHECK_SECONDS", 0.5)

    def never(*args: object, **kwargs: object) -> None:
        while True:
            try:
                time.sleep(0.01)
            except Exception:  # code that swallows what it can is stopped all the same
                pass

    start = time.monotonic()
    feedback = check(key, never)
    assert not feedback.ok and "did not finish within 0.5 s" in feedback.message
    assert time.monotonic() - start < 10


def test_exit_and_a_forgotten_return_are_said_for_what_they_are():
    def exits(history: object) -> None:
        raise SystemExit(0)

    assert "called exit()" in check("06.1", exits).message

    def forgets(account_id: str, rows: list, matched: int) -> None:
        {"rows": rows, "complete": len(rows) == matched}

    def raises(account_id: str, rows: list, matched: int) -> dict:
        return {"total": sum(r["amount"] for r in rows)}

    for fn, words in ((forgets, "returned None"), (raises, "Your paid_result raised")):
        feedback = check("14.1", fn)
        assert not feedback.ok and words in feedback.message and feedback.message != BLANK


def test_an_exercise_key_that_is_no_string_is_one_line_in_html_too():
    feedback = check(2.1, {})  # type: ignore[arg-type]
    assert not feedback.ok and "There is no exercise 2.1" in feedback._repr_html_()


def test_a_raising_call_tool_is_said_in_one_line_without_the_sdks_traceback(capsys):
    pytest.importorskip("mcp")

    def call_tool(name: str, arguments: dict) -> dict:
        raise ValueError("boom")

    feedback = check("15.2", call_tool)
    assert "Your call_tool raised ValueError on a call to 'stock_level'" in feedback.message
    assert "Traceback" not in capsys.readouterr().err


def test_a_handlers_crash_is_said_without_the_key_in_its_message():
    key = "sk-" + "ant-" + "api03-" + "LEAKEDKEY0123456789abcdef"  # built from pieces: no literal key in the repo

    def get_product(args: dict, ctx: object) -> dict:
        raise RuntimeError(f"catalogue refused key {key}")

    feedback = check("04.1", get_product)
    assert "RuntimeError" in feedback.message and "LEAKEDKEY" not in feedback.message

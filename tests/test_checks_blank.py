"""What "not answered yet" is: the placeholder `...`, as a value or as a function's whole body, read from source."""
from __future__ import annotations

import dis

import pytest

from atlas_kit.course.checks._registry import BLANK, PLACEHOLDER, is_blank
from atlas_kit.course.checks import check


def gap(args, ctx):
    ...  # your answer here


def documented_gap(records):
    """A docstring, then the exercise's gap."""
    ...  # your answer here


def passes(x):
    pass


def returns_the_placeholder(x):
    return ...


async def async_gap(name, arguments):
    ...  # your answer here


def outer(tool):
    def handler(args, ctx):
        ...  # your answer here
    return handler


def forgot_to_return(args, ctx):
    args.get("sku")


def returns_none_on_purpose(records):
    """An answer: nothing to report."""
    return None if records else None


class Callable:
    def __call__(self, *args):
        ...


@pytest.mark.parametrize("answer", [PLACEHOLDER, None, gap, documented_gap, passes, returns_the_placeholder, async_gap,
                                    outer(None)],
                         ids=["placeholder", "none", "gap", "documented", "pass", "return_placeholder", "async",
                              "nested"])
def test_the_placeholder_and_a_body_that_is_only_the_placeholder_read_as_blank(answer):
    assert is_blank(answer) is True


@pytest.mark.parametrize("answer", [forgot_to_return, returns_none_on_purpose, lambda *a: ..., Callable(), 0, "", [],
                                    outer],
                         ids=["does_work", "returns_none", "lambda", "callable_object", "zero", "empty_str",
                              "empty_list", "has_a_body"])
def test_anything_that_does_something_is_an_answer(answer):
    assert is_blank(answer) is False


def test_a_function_without_readable_source_is_taken_as_answered():
    namespace: dict = {}
    exec("def made(x):\n    ...\n", namespace)  # no file behind it: its source cannot be read
    assert is_blank(namespace["made"]) is False


def test_the_rule_never_reads_bytecode(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("is_blank read bytecode")

    monkeypatch.setattr(dis, "get_instructions", refuse)
    monkeypatch.setattr(dis, "Bytecode", refuse)
    assert is_blank(gap) and not is_blank(forgot_to_return)


@pytest.mark.parametrize("key, answer", [("01.2", documented_gap), ("04.1", gap), ("08.2", gap),
                                         ("10.1", {"lost_reply": ..., "down": ..., "quota": ...})])
def test_check_says_not_answered_for_a_gap_and_something_else_for_an_answer(key, answer):
    fb = check(key, answer)
    assert fb.message == BLANK and not fb.ok
    assert check(key, forgot_to_return if callable(answer) else {"lost_reply": 1}).message != BLANK

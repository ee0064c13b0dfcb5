"""`text_memo`: a pure reading of a text, remembered for the short texts a sweep sees over and over.

A sweep with the offline stand-in repeats itself: its episodes end in a few distinct answers (the throughput
benchmark prints how few), and the same tool results come back in episode after episode, so the grader's regular
expressions would read the same text again each time. A long text is read afresh every time, so the cache stays
small whatever a model or a hostile client sends (a 1 MB argument is never kept). What is remembered must be
immutable: a tuple, a frozenset, a str, a bool.
"""
from __future__ import annotations

import functools
from typing import Callable, TypeVar

__all__ = ["MEMO_CHARS", "MEMO_SIZE", "text_memo"]

MEMO_CHARS = 4_000
"""Texts longer than this are never remembered: at most MEMO_SIZE x MEMO_CHARS characters a reader keeps."""
MEMO_SIZE = 2_048

_Answer = TypeVar("_Answer")


def text_memo(read: Callable[[str], _Answer]) -> Callable[[str], _Answer]:
    """`read`, remembering its answer for each of the last MEMO_SIZE texts of at most MEMO_CHARS characters.

    `read` must be a pure function of its text and return an immutable value.
    """
    remembered = functools.lru_cache(maxsize=MEMO_SIZE)(read)

    @functools.wraps(read)
    def memo(text: str) -> _Answer:
        return remembered(text) if len(text) <= MEMO_CHARS else read(text)

    return memo

"""`text_memo`: a pure reading of a text, remembered for the short texts a sweep sees over and over.

A sweep with the offline stand-in repeats itself: its episodes end in far fewer distinct answers than there are
episodes (the throughput benchmark prints how many), and the same tool results come back in episode after episode,
so the grader's regular expressions would read the same text again each time. A long text is read afresh every
time, so the cache stays small whatever a model or a hostile client sends (a 1 MB argument is never kept). What is
remembered must be immutable: a tuple, a frozenset, a str, a bool.
"""
from __future__ import annotations

import functools
from typing import Callable, TypeVar

MEMO_CHARS = 4_000
"""Texts longer than this are never remembered: a reader keeps at most MEMO_SIZE texts of MEMO_CHARS characters
(about 2 MB), and its answers to them."""
MEMO_SIZE = 512

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

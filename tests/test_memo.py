"""text_memo: a pure reading of a short text is done once; a long one is read afresh each time and never kept."""
from __future__ import annotations

from atlas_kit.types.memo import MEMO_CHARS, text_memo


def test_a_short_text_is_read_once_and_a_long_one_every_time() -> None:
    reads: list[int] = []

    @text_memo
    def length(text: str) -> int:
        reads.append(len(text))
        return len(text)

    short, long = "a" * MEMO_CHARS, "b" * (MEMO_CHARS + 1)
    assert [length(short), length(short), length(long), length(long)] == [MEMO_CHARS, MEMO_CHARS,
                                                                         MEMO_CHARS + 1, MEMO_CHARS + 1]
    assert reads == [MEMO_CHARS, MEMO_CHARS + 1, MEMO_CHARS + 1]
    assert length.__name__ == "length"  # it keeps the reader's name and docstring for help()


def test_the_readers_it_wraps_answer_as_before_on_a_repeated_text() -> None:
    from atlas_kit.atlas.claims import claims
    from atlas_kit.contract.redaction import looks_secret, redact

    answer = "I refunded INV-2231. The escalation didn't go through, so I could not hand it to a person."
    first = claims(answer)
    first.append(first[0])  # the caller's list is its own: changing it changes nothing remembered
    assert claims(answer) == first[:-1] and len(first) > 1
    assert redact("key api_key=abcd1234efgh") == "key api_key=[redacted]" == redact("key api_key=abcd1234efgh")
    assert looks_secret("password: hunter22") and not looks_secret("ACC-4471")

"""paired_rows names a switch's arms by what the switch is (chapter 06 compares the loop breaker on and off): the
header says settings, each row and the caption say "loop breaker on", and a style's arms keep their names."""
from __future__ import annotations

from atlas_kit.experiments.stats import paired_rows


def _episode(on: bool, ticket: str, correct: bool) -> dict:
    return {"key": f"{on}|{ticket}", "model": "m", "style": "generic", "faults": True, "break_loops": on,
            "profile": None, "ticket": ticket, "trial": 0, "seed": 0, "correct": correct, "stop_reason": "finished",
            "source": "simulated (offline stand-in)", "source_kind": "simulated"}


def test_the_loop_breakers_arms_are_named_on_and_off():
    records = [_episode(on, f"T0{t}", ok) for t, (a, b) in enumerate([(True, True), (True, False), (False, False)])
               for on, ok in ((True, a), (False, b))]
    table = paired_rows(records, by="break_loops", against=True)
    [row] = table.rows
    assert row[:4] == ["loop breaker on - loop breaker off", "all", 3, "1 / 0"]
    assert table.columns[0] == "settings compared" and table.columns[3] == "right only in loop breaker on / other"
    assert "loop breaker on minus the other arm" in table.caption and "True" not in table.caption


def test_a_styles_arms_keep_their_names():
    records = [{**_episode(True, f"T0{t}", ok), "style": style, "key": f"{style}|{t}"}
               for t in range(2) for style, ok in (("raw", False), ("contract", True))]
    table = paired_rows(records)
    assert table.columns[0] == "styles compared" and table.rows[0][0] == "contract - raw"

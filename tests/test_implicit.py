"""Recovery per cell of the explicit/implicit x transient/permanent 2x2, and the sweep that feeds it."""
from __future__ import annotations

import pytest

from atlas_kit.atlas.faults import CELLS
from atlas_kit.atlas.tickets import IMPLICIT_TICKETS
from atlas_kit.experiments.implicit import recovery_by_cell, sweep, ticket_cell
from atlas_kit.face.tables import cell_table
from atlas_kit.stats import wilson
from atlas_kit.experiments.results import Condition, episode_key


def rec(ticket: str, style: str, correct: bool, labels=(), faults: bool = True, stop: str = "finished") -> dict:
    return {"ticket": ticket, "style": style, "faults": faults, "correct": correct, "labels": list(labels),
            "stop_reason": stop, "source": "simulated (offline rule-based stand-in, not an LLM)"}


def test_ticket_cells_follow_their_faults():
    assert [ticket_cell(t) for t in ("T28", "T29", "T30", "T31")] == list(CELLS)
    assert ticket_cell("T21") == ("explicit", "permanent")  # a core ticket with one fault has a cell too
    assert ticket_cell("T01") is None and ticket_cell("T99") is None


def test_recovery_by_cell_counts_faults_on_episodes_per_cell_and_arm():
    rs = [rec("T30", "raw", False, ["silent_wrong"]), rec("T34", "raw", False, ["silent_wrong"]),
          rec("T38", "raw", True), rec("T30", "contract", True), rec("T34", "contract", True),
          rec("T29", "raw", True), rec("T33", "raw", False, ["loop"]),
          rec("T30", "raw", True, faults=False),  # faults off: no cell
          rec("T01", "raw", True),  # no faults of its own: no cell
          rec("T31", "raw", True, stop="harness_error")]  # the harness failed: left out
    cells = recovery_by_cell(rs)
    assert list(cells) == [(("explicit", "permanent"), "raw"), (("implicit", "transient"), "contract"),
                           (("implicit", "transient"), "raw")]
    raw = cells[(("implicit", "transient"), "raw")]
    assert (raw.recovered.successes, raw.recovered.n, raw.silent_wrong.successes) == (1, 3, 2)
    assert raw.recovered.interval == wilson(1, 3)
    assert cells[(("explicit", "permanent"), "raw")].recovered.successes == 1


def test_cell_table_is_labelled_with_its_source_and_intervals():
    table = cell_table([rec("T31", "raw", False, ["silent_wrong"]), rec("T31", "contract", True)])
    text = repr(table)
    assert "Data: simulated" in text and "implicit, permanent" in text
    assert table.rows[0] == ["implicit, permanent", "contract", "1", "100% [21%, 100%]", "0% [0%, 79%]"]


def test_the_sweep_gives_the_same_records_as_a_sweep_key_for_key_and_is_deterministic():
    a = sweep(styles=["raw", "contract"], tickets=["T30", "T31"], trials=2, first_seed=4)
    b = sweep(styles=["raw", "contract"], tickets=["T30", "T31"], trials=2, first_seed=4)
    assert a == b and len(a) == 8
    first = a[0]
    assert first["key"] == episode_key(Condition("raw", True, True, "default", "atlas-offline-1"), "T30", 0, seed=4)
    assert first["source"].startswith("simulated") and all(r["faults"] for r in a)
    cells = recovery_by_cell(a)
    assert cells[(("implicit", "permanent"), "raw")].silent_wrong.successes == 2  # the stand-in's rule, by design
    assert cells[(("implicit", "permanent"), "contract")].recovered.successes == 2


def test_the_sweep_defaults_to_the_implicit_tickets_and_refuses_bad_options():
    assert {r["ticket"] for r in sweep(trials=1)} == set(IMPLICIT_TICKETS)
    for bad, match in ((dict(tickets=["T77"]), "T77"), (dict(styles="raw"), "styles"), (dict(styles=["loud"]), "styles"),
                       (dict(trials=0), "trials")):
        with pytest.raises(ValueError, match=match):
            sweep(**bad)

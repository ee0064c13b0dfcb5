from __future__ import annotations

import re

import pytest

from atlas_kit.atlas.data import TENANTS
from atlas_kit.atlas import TICKETS, TOOL_NAMES, World, atlas_session, grade, play
from atlas_kit.atlas.faults import TRANSIENT
from atlas_kit.atlas.outcome import Lookup
from atlas_kit.atlas.phrases import ZERO
from atlas_kit.contract.errors import ErrorCode

IDS = re.compile(r"\b(?:ACC-\d{4}|INV-\d{5}|ORD-\d{5}|SKU-\d{4})\b")


def test_at_least_24_tickets_with_sequential_ids_and_known_customers():
    assert len(TICKETS) >= 24
    assert [t.id for t in TICKETS.values()] == [f"T{i:02d}" for i in range(1, len(TICKETS) + 1)]
    for t in TICKETS.values():
        assert t.customer in TENANTS and t.title and len(t.message) > 30


def test_messages_name_concrete_ids_that_exist_unless_the_ticket_is_about_a_wrong_one():
    w = World(0)
    for t in TICKETS.values():
        ids = IDS.findall(t.message)
        assert ids, t.id
        for ident in ids:
            exists = ident in w.products if ident.startswith("SKU") else w.tenant_of(ident) is not None
            assert exists or "not_found" in t.expect.codes, (t.id, ident)


def test_every_code_and_branch_is_covered():
    codes = {c for t in TICKETS.values() for c in t.expect.codes}
    branches = {b for t in TICKETS.values() for b in t.expect.branches}
    assert codes == {c.value for c in ErrorCode}
    assert branches == {"retry_changed", "switch_tool", "stop"}
    # retry_unchanged is the harness's: some tickets inject a transient failure that clears within its retries
    assert any(f.kind in TRANSIENT and not f.persistent for t in TICKETS.values() for f in t.faults)


def test_the_mix_of_tickets():
    assert sum(t.expect.stops for t in TICKETS.values()) >= 6
    assert sum(any(f == ZERO for f in t.expect.facts) for t in TICKETS.values()) >= 2
    assert sum(not t.faults and not t.expect.codes for t in TICKETS.values()) >= 6  # nothing goes wrong
    assert sum(t.expect_clean is not None for t in TICKETS.values()) >= 3  # the clean run ends differently
    assert all(f.tool in TOOL_NAMES for t in TICKETS.values() for f in t.faults)


@pytest.mark.parametrize("faults", [True, False], ids=["faults", "clean"])
@pytest.mark.parametrize("t", list(TICKETS.values()), ids=[t.id for t in TICKETS.values()])
def test_replaying_the_script_is_graded_correct_with_no_labels(t, faults):
    s = atlas_session(t, faults=faults)
    run = play(s)
    g = grade(run)
    assert g.correct and g.labels == (), (t.id, g.reasons)
    outcome = t.outcome(faults=faults)
    errors = s.trace.of_kind("error")
    assert tuple(e["code"] for e in errors) == outcome.codes
    assert tuple(e["branch"] for e in errors) == outcome.branches


@pytest.mark.parametrize("t", [t for t in TICKETS.values() if any(isinstance(f, Lookup) for f in t.expect.facts)], ids=lambda t: t.id)
def test_seed_dependent_figures_follow_the_seed(t):
    for seed in (0, 5):
        run = play(atlas_session(t, seed=seed))
        assert grade(run).correct
    assert play(atlas_session(t, seed=0)).final_text != play(atlas_session(t, seed=5)).final_text


@pytest.mark.parametrize("style", ["raw", "generic"])
def test_tool_behaviour_does_not_depend_on_the_style(style):
    for t in TICKETS.values():
        a, b = atlas_session(t), atlas_session(t, style=style)
        play(a), play(b)
        assert a.world.snapshot() == b.world.snapshot(), t.id

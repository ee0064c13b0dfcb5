from __future__ import annotations

import time

import pytest

from atlas_kit.atlas import TICKETS, TOOL_NAMES, atlas_session, play, ticket
from atlas_kit.atlas.faults import Fault
from atlas_kit.dispatch.styles import raw_style


def test_session_has_world_dispatcher_system_and_tools():
    s = atlas_session("T05", seed=3)
    assert s.ticket is ticket("T05") and s.world.seed == 3
    assert [t["name"] for t in s.tools()] == list(TOOL_NAMES)
    assert '"acme"' in s.system and "acme" == s.ticket.customer
    assert s.dispatcher.break_loops is True and s.dispatcher.retry.sleep == s.world.advance


def test_style_and_break_loops_pass_through():
    s = atlas_session("T01", style="raw", break_loops=False)
    assert s.dispatcher.style is raw_style and s.style == "raw" and s.dispatcher.break_loops is False


def test_faults_true_false_or_a_list():
    assert atlas_session("T11").schedule.faults == ticket("T11").faults
    assert atlas_session("T11", faults=False).schedule is None
    custom = atlas_session("T01", faults=[Fault("get_account", "timeout")])
    assert custom.faults and custom.schedule.faults[0].tool == "get_account"


def test_unknown_ticket_is_refused_with_the_ids_named():
    with pytest.raises(KeyError, match="T01 to T"):
        atlas_session("T99")
    with pytest.raises(TypeError, match="ticket id"):
        atlas_session(42)  # type: ignore[arg-type]


def test_retries_advance_the_virtual_clock_not_the_wall_clock():
    s = atlas_session("T21")  # warehouse times out on every attempt
    start = time.perf_counter()
    play(s)
    assert s.world.clock == pytest.approx(0.75) and time.perf_counter() - start < 0.2


def test_ticket_lookup_by_id():
    assert TICKETS["T01"] is ticket("T01") and list(TICKETS) == [t.id for t in TICKETS.values()]


def test_retry_attempts_one_turns_harness_retries_off():
    from atlas_kit.atlas import atlas_session

    s = atlas_session("T25", retry_attempts=1)
    assert s.dispatcher.retry.attempts == 1
    import pytest

    with pytest.raises(ValueError, match="retry_attempts"):
        atlas_session("T25", retry_attempts=0)

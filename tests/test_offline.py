"""The offline stand-in through the real SDK: every ticket, every style, deterministic, bounded."""
from __future__ import annotations

import json
import os

import pytest

from atlas_kit.types.sets import STOP_REASONS
from atlas_kit.agent import Bounds, run_agent
from atlas_kit.atlas import TICKETS, atlas_session, grade
from atlas_kit.models.standin.model import NOT_A_TICKET, OFFLINE_MODEL, Profile, offline_client

STYLES = ("raw", "generic", "contract")


def run(tid, *, style="contract", faults=True, seed=0, profile=None, bounds=None):
    client = offline_client(seed=seed, profile=profile)
    return run_agent(client, atlas_session(tid, style=style, faults=faults, seed=seed), model=OFFLINE_MODEL,
                     bounds=bounds or Bounds(max_steps=8))


@pytest.mark.parametrize("style", STYLES)
def test_every_ticket_ends_with_a_stop_reason_within_bounds(style):
    for tid in TICKETS:
        r = run(tid, style=style)
        assert r.stop_reason in STOP_REASONS, (tid, r.stop_reason)
        assert r.steps <= 8
        if r.stop_reason == "finished":
            assert r.final_text


# The stand-in relays a `say` only up to its first "and" (offline._customer_words), so where the say asks for two
# things the answer leaves the second out: T23's "ask them to confirm it", the give-up's "offer to escalate to a
# person" (T11, T21). The grader names that omitted_tell; every other ticket it answers in full.
# Tickets whose `say` asks for two things: what to tell, and a person to offer or a number to check.
TWO_PART_SAYS = {"T11": "a person on our team", "T21": "a person on our team", "T23": "Could you check it"}


def test_clean_runs_are_all_correct_so_paired_recovery_has_a_baseline():
    graded = {tid: grade(run(tid, faults=False)) for tid in TICKETS}
    assert {tid: g.reasons for tid, g in graded.items() if not g.correct} == {}


def test_following_the_contract_recovers_on_every_ticket_and_passes_on_both_halves_of_a_say():
    runs = {tid: run(tid, style="contract") for tid in TICKETS}
    assert {tid: grade(r).reasons for tid, r in runs.items() if not grade(r).correct} == {}
    for tid, words in TWO_PART_SAYS.items():
        assert words in runs[tid].final_text, (tid, runs[tid].final_text)


def test_a_change_whose_outcome_is_unknown_is_reported_as_tried_never_as_not_done():
    # T10 without harness retries: the refund is applied, the reply is lost, the give-up error says it may have been.
    client = offline_client(seed=0)
    s = atlas_session("T10", style="contract", retry_attempts=1)
    r = run_agent(client, s, model=OFFLINE_MODEL, bounds=Bounds(max_steps=8))
    assert len(s.world.refunds) == 1 and s.trace.of_kind("error")[0]["code"] == "upstream_unavailable"
    assert r.final_text.startswith("I tried to issue the $480.00 refund") and "couldn't" not in r.final_text
    assert "could not confirm whether it went through" in r.final_text and grade(r).correct
    # with no words to trust (raw), a change that failed is unconfirmed too; a lookup that failed was not done
    stops = Profile(name="stops", retry_same=0, vary_argument=0, apologise=0, fabricate=0, stop_correctly=1)
    raw = run("T27", style="raw", profile=stops)
    assert raw.final_text.startswith("I tried to") and "could not confirm whether it went through" in raw.final_text
    read = run("T21", style="raw", profile=stops)
    assert read.final_text.startswith("I couldn't get") and "was not completed" in read.final_text


def test_generic_wrapper_invites_a_retry_that_the_breaker_stops():
    r = run("T05", style="generic")
    assert r.stop_reason == "loop_broken" and "loop" in grade(r).labels


def test_unguided_behaviour_follows_the_profile():
    only_stop = Profile(name="stops", retry_same=0, vary_argument=0, apologise=0, fabricate=0, stop_correctly=1)
    only_retry = Profile(name="retries", retry_same=1, vary_argument=0, apologise=0, fabricate=0, stop_correctly=0)
    only_vary = Profile(name="varies", retry_same=0, vary_argument=1, apologise=0, fabricate=0, stop_correctly=0)
    assert grade(run("T05", style="raw", profile=only_stop)).correct
    assert run("T05", style="raw", profile=only_retry).stop_reason == "loop_broken"
    assert "enumeration" in grade(run("T05", style="raw", profile=only_vary)).labels


def test_profile_weights_must_sum_to_one():
    with pytest.raises(ValueError, match="sum to 1"):
        Profile(retry_same=0.5)


def test_same_seed_same_transcript_and_seeds_can_differ():
    a, b = run("T05", style="raw", seed=3), run("T05", style="raw", seed=3)
    assert a.messages == b.messages and a.final_text == b.final_text
    finals = {run(t, style="raw", seed=s).final_text for s in range(6) for t in ("T05", "T08")}
    assert len(finals) > 2


def test_responses_carry_ids_stop_reasons_and_usage():
    client = offline_client(seed=0)
    msg = client.messages.create(model=OFFLINE_MODEL, max_tokens=100, messages=[{"role": "user", "content": TICKETS["T01"].message}],
                                 tools=atlas_session("T01").tools())
    assert msg.id.startswith("msg_") and msg.stop_reason == "tool_use"
    assert msg.content[0].type == "tool_use" and msg.content[0].id.startswith("toolu_")
    assert msg.usage.input_tokens > 100 and msg.usage.output_tokens > 0


def test_anything_but_a_ticket_gets_an_honest_reply():
    client = offline_client()
    msg = client.messages.create(model=OFFLINE_MODEL, max_tokens=100, messages=[{"role": "user", "content": "Write me a poem."}])
    assert msg.content[0].text == NOT_A_TICKET and "not a language model" in NOT_A_TICKET


def test_no_key_reaches_transcript_trace_or_rendering(monkeypatch):
    key = "sk-" + "ant-" + "api03-" + "Z" * 24
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    r = run("T04", style="raw")
    blob = json.dumps(r.messages) + r.trace.to_json() + r._repr_html_() + str(r)
    assert key not in blob and "sk-ant" not in blob
    assert os.environ["ANTHROPIC_API_KEY"] == key


def test_the_failed_tools_own_name_in_a_traceback_is_not_a_switch_cue():
    only_retry = Profile(name="retries", retry_same=1, vary_argument=0, apologise=0, fabricate=0, stop_correctly=0)
    r = run("T21", style="raw", profile=only_retry)  # its raw timeout names /srv/atlas/services/query_warehouse.py
    assert r.stop_reason == "loop_broken"

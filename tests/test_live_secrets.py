"""Nothing secret on disk or on screen, internals kept out of errors, and bad values refused with one clear line."""
from __future__ import annotations

import json
import math

import pytest
from live_api import FAKE_KEY, LocalAPI

import atlas_kit as E
from atlas_kit.agent import Bounds, run_agent
from atlas_kit.atlas import atlas_session
from atlas_kit.dispatch.transient import RetryPolicy
from atlas_kit.dispatch.tool import Tool
from atlas_kit.experiments.sweep import run_experiment, sweep
from atlas_kit.models.choose import choose_model
from atlas_kit.models.cassette import Cassette
from atlas_kit.contract.redaction import redact
from atlas_kit.models.transport import APIFault, ScriptedAPI, in_process_client
from atlas_kit.models.body import message_body

MODEL = "claude-sonnet-5-5"
PASSWORD = "pass" + "word=" + "hunter2hunter2"
SECRETS = [FAKE_KEY, "AKIA" + "ABCDEFGHIJKLMNOP", "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", PASSWORD,
           "Bearer " + "abcdefghijklmnopqrstuvwxyz", "api_key: " + "0123456789abcdef"]


@pytest.mark.parametrize("secret", SECRETS)
def test_redact_removes_every_key_shape_and_named_secret(secret):
    text = f"the upstream said: {secret} (retry later)"
    assert secret not in redact(text) and "[redacted]" in redact(text)


@pytest.mark.parametrize("plain", ["ACC-4471", "INV-20412", "msg_0123456789abcdef01234567", "toolu_01A", "a" * 64,
                                   '"max_tokens": 1024', "input_tokens=100", "$1,250.00", "2026-10-07"])
def test_redact_leaves_ids_counts_and_fingerprints_alone(plain):
    assert redact(plain) == plain


def test_a_harness_error_is_redacted_before_it_is_written(tmp_path, monkeypatch):
    import atlas_kit.experiments.episodes as episodes  # episode_record grades every way of running an episode

    def leaky(run):
        raise RuntimeError(f"grader could not log in with {PASSWORD} and {FAKE_KEY}")

    monkeypatch.setattr(episodes, "grade", leaky)
    out = tmp_path / "r.jsonl"
    records = run_experiment(name="leak", styles=("raw",), faults=(True,), tickets=("T01",), trials=1, out=out,
                             progress=False)
    text = out.read_text()
    assert records[0]["stop_reason"] == "harness_error" and "grader could not log in" in text
    assert FAKE_KEY not in text and "hunter2" not in text


def test_every_string_of_a_record_is_redacted_on_the_way_to_disk(tmp_path):
    out = tmp_path / "r.jsonl"
    records = run_experiment(name=f"sweep for {FAKE_KEY}", styles=("raw",), faults=(True,), tickets=("T01",), trials=1,
                             out=out, progress=False)
    assert records[0]["experiment"] == f"sweep for {FAKE_KEY}"  # in memory, as given
    assert FAKE_KEY not in out.read_text() and '"experiment": "sweep for [redacted]"' in out.read_text()


def test_an_api_error_that_echoes_the_key_is_redacted_in_the_record_the_trace_and_the_transcript(tmp_path, monkeypatch):
    echo = APIFault(401, f"invalid x-api-key {FAKE_KEY}", headers={"retry-after-ms": "1"})
    with LocalAPI(ScriptedAPI([echo] * 4)) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        result = sweep(name="leak", model=MODEL, styles=("raw",), faults=(True,), tickets=("T01",), trials=1,
                       out=tmp_path / "r.jsonl", progress=False)
        run = run_agent(choose_model(MODEL).client, atlas_session("T01"), model=MODEL)
    assert result.stopped == "authentication" and "invalid x-api-key [redacted]" in result.records[0]["api_error"]
    shown = (tmp_path / "r.jsonl").read_text() + json.dumps(run.trace.events) + run._repr_html_() + str(run)
    assert "invalid x-api-key" in shown and FAKE_KEY not in shown and "api03" not in shown


def test_a_transcript_never_shows_a_key_the_model_or_a_tool_wrote():
    answer = message_body([{"type": "text", "text": f"Your key is {FAKE_KEY}; {PASSWORD}."}], model=MODEL,
                          stop_reason="end_turn")
    run = run_agent(in_process_client(ScriptedAPI([answer]), max_retries=0), atlas_session("T01"), model=MODEL)
    assert "Your key is [redacted]" in str(run) and FAKE_KEY not in run._repr_html_() + str(run)
    assert "hunter2" not in run._repr_html_() + str(run)


def test_a_cassette_never_holds_a_password_or_a_key(tmp_path):
    tape = Cassette(model=MODEL, recorded_on="2026-01-02")
    request = {"model": MODEL, "max_tokens": 8, "messages": [{"role": "user", "content": f"log in with {PASSWORD}"}]}
    tape.record(request, message_body([{"type": "text", "text": f"key {FAKE_KEY}"}], model=MODEL, stop_reason="end_turn"))
    tape.save(tmp_path / "t.json")
    text = (tmp_path / "t.json").read_text()
    assert "hunter2" not in text and FAKE_KEY not in text and "[redacted]" in text


# --- the internals guard and safe() -------------------------------------------------------------------------


@pytest.mark.parametrize("leak", [
    "Could not reach 10.0.3.7:5432 in time.", "Could not reach db-7.atlas.example:5432 in time.",
    "Connect to localhost:8080 failed.", "Could not open /var/lib/atlas/invoices.db now.",
    r"Could not open C:\Users\atlas\invoices.db now.", "It raised psycopg2.errors.UniqueViolation.",
    "It raised requests.exceptions.ConnectionError.", "KeyError: 'account_id'", f"Log in with {PASSWORD} instead.",
    f"Use the key {FAKE_KEY} instead.", "Use the token aB3dE5gH7jK9mN1pQ3sT5vW7 instead.", "The api_key: 0123abcd is wrong.",
])
def test_internals_and_secrets_in_a_model_facing_message_are_refused(leak):
    with pytest.raises(ValueError, match="internals"):
        E.tool_error("t", "upstream_unavailable", leak)
    with pytest.raises(ValueError, match="internals"):
        E.Next(E.Branch.STOP, leak)


@pytest.mark.parametrize("fine", [
    "No order has that order_id.", "The refund ceiling is $500.00; use escalate_to_human instead.",
    "Account ACC-4471 has no unpaid invoices.", "Tell the customer it will ship by 10:30 tomorrow.",
    "Use get_order or update_order, and/or ask the customer.", "The value of account.Status is wrong.",
    "The service is not responding; retry after 30 seconds.",
])
def test_plain_instructions_still_pass_the_guard(fine):
    assert E.tool_error("t", "invalid_argument", fine).message == fine


@pytest.mark.parametrize("value", ["db-7:5432", "localhost:8080", "10.0.0.5:5432", "sk-" + "ant-abcdef123",
                                   "aB3dE5gH7jK9mN1pQ3sT5v", "AKIA" + "ABCDEFGHIJKLMNOP", "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"])
def test_safe_refuses_host_ports_and_key_shaped_tokens(value):
    with pytest.raises(ValueError, match="host:port nor shaped like a key"):
        E.safe(value)


@pytest.mark.parametrize("value", ["ACC-4471", "2026-09-01", "10:30", "INV-20412", "ORD-77120", "T04"])
def test_safe_still_accepts_ids_dates_and_times(value):
    assert str(E.safe(value)) == value


# --- bounds, retries and tool names refuse nonsense --------------------------------------------------------------


@pytest.mark.parametrize("options, name", [
    ({"max_cost_usd": math.nan}, "max_cost_usd"), ({"max_cost_usd": math.inf}, "max_cost_usd"),
    ({"max_cost_usd": True}, "max_cost_usd"), ({"max_steps": 2.5}, "max_steps"), ({"max_steps": True}, "max_steps"),
    ({"max_tokens": "1024"}, "max_tokens"), ({"max_total_tokens": 0}, "max_total_tokens"),
    ({"retry_max_tokens": 512}, "retry_max_tokens"),
])
def test_bounds_refuse_nan_bools_and_non_integers(options, name):
    with pytest.raises(ValueError, match=f"Bounds: {name}"):
        Bounds(**options)


@pytest.mark.parametrize("options", [{"attempts": True}, {"attempts": 2.5}, {"base_delay": math.nan},
                                     {"max_delay": math.inf}, {"base_delay": False}])
def test_retry_policy_refuses_nan_bools_and_non_integers(options):
    with pytest.raises(ValueError, match="RetryPolicy"):
        RetryPolicy(**options)


def _tool(name: str) -> Tool:
    return Tool(name, "Looks up one order by its order_id.", {"type": "object", "properties": {}}, lambda a, c: {})


@pytest.mark.parametrize("name", ["a" * 65, "bad name", "café", "", "get.order"])
def test_tool_names_follow_the_api_rule(name):
    with pytest.raises(ValueError, match=r"\^\[a-zA-Z0-9_-\]\{1,64\}\$"):
        _tool(name)


@pytest.mark.parametrize("name", ["a" * 64, "get-order", "get_order_2"])
def test_tool_names_the_api_accepts_are_accepted(name):
    assert _tool(name).definition()["name"] == name

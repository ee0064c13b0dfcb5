"""`atlas-kit audit` on scripted MCP servers, one per case of issue 51 that CI has no real server for: a server that
crashes on its third call, hangs on every call or answers nothing valid (exit 3, never a score of 100), one canned
reply to every call, errors sent as successes, the SDK's words beside the author's, bounds, patterns and formats,
and a network attempt while side effects are off. Each server is a few lines of JSON-RPC (raw_mcp.SERVE)."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from atlas_kit.cli import main
from raw_mcp import SERVE

pytest.importorskip("mcp")

SCRIPT = SERVE + '''
MODE = sys.argv[1]
CALLS = [0]
LIMIT = {"type": "integer", "minimum": 1, "maximum": 500}
SCHEMA = {"type": "object", "additionalProperties": False, "required": ["account_id"],
          "properties": {"account_id": {"type": "string", "pattern": "^ACC-[0-9]{4}$"}, "limit": LIMIT,
                         "since": {"type": "string", "format": "date"}}}
CANNED = {"error": "invalid_argument", "message": "Argument account_id must look like ACC-1234.", "retryable": True,
          "next": {"branch": "retry_changed", "say": "Fix account_id and call again.", "argument": "account_id"}}


def tools():
    names = ["list_orders", "get_order"] if MODE != "network" else ["fetch"]
    schema = SCHEMA if MODE != "network" else {"type": "object", "properties": {"url": {"type": "string"}},
                                              "required": ["url"]}
    return [{"name": n, "description": "Orders.", "inputSchema": schema, "annotations": {"readOnlyHint": True}}
            for n in names]


def text(t, is_error=True):
    return {"result": {"content": [{"type": "text", "text": t}], "isError": is_error}}


def called(params):
    CALLS[0] += 1
    args = params.get("arguments") or {}
    if MODE == "crash" and CALLS[0] == 3:
        os._exit(1)
    if MODE == "hang":
        time.sleep(60)
    if MODE == "invalid":
        return {"result": {"content": "not a list", "isError": "maybe"}}
    if MODE == "canned":
        return text(json.dumps(CANNED))
    if MODE == "success":
        return text("Error: no orders for that account", is_error=False)
    if MODE == "network":
        import socket
        try:
            socket.create_connection(("192.0.2.1", 80), timeout=2)
            return text("connected", is_error=False)
        except OSError as err:
            return text(f"Failed to fetch: {err}")
    if MODE == "sdk" and set(args) - {"account_id", "limit", "since"}:
        return text("MCP error -32602: Input validation error: Invalid arguments for tool list_orders: Unrecognized key")
    if MODE == "sdk":
        return text(f"Argument {sorted(args)[0] if args else 'account_id'} is not valid here; call it again with it changed.")
    return text(f"No orders for {args.get('account_id', 'that account')}.")


def answer(method, params):
    if method == "tools/list":
        return {"result": {"tools": tools()}}
    if method == "tools/call":
        return called(params)
    return {"result": {}}


serve(answer)
'''


@pytest.fixture
def server(tmp_path: Path) -> Path:
    script = tmp_path / "scripted.py"
    script.write_text(SCRIPT)
    return script


def audit(capsys, tmp_path, server, mode, *options):
    report = tmp_path / f"{mode}.json"
    status = main(["audit", "--no-progress", "--json", str(report), "--html", str(tmp_path / f"{mode}.html"), *options,
                   "--", sys.executable, str(server), mode])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err, json.loads(report.read_text())


def score_line(out):
    return re.search(r"server score: (\S+) / 100", out).group(1)


def test_a_server_that_crashes_on_its_third_call_exits_3_and_never_scores_100(capsys, tmp_path, server):
    status, out, err, doc = audit(capsys, tmp_path, server, "crash")
    assert status == 3 and "the server failed the audit: the server closed the connection" in err
    crashed = [c for t in doc["tools"] for c in t["cases"] if c["outcome"] == "crashed"]
    assert len(crashed) == 1 and doc["score"] is not None and doc["score"] < 100 and score_line(out) != "100.0"
    assert doc["failure"] and "counts each such call as 0" in out


@pytest.mark.parametrize("mode, said", [("hang", "1 timed out"), ("invalid", "got an invalid reply")])
def test_a_server_that_answers_no_call_usably_exits_3_with_a_score_of_0(capsys, tmp_path, server, mode, said):
    status, out, err, doc = audit(capsys, tmp_path, server, mode, "--call-timeout", "0.3")
    assert status == 3 and doc["score"] == 0.0 and score_line(out) == "0.0"
    assert "no call got a usable answer" in err
    if mode == "hang":  # three calls in a row with no answer stop the audit: it does not wait 0.3 s x every case
        made = [c for t in doc["tools"] for c in t["cases"] if c["outcome"] == "timeout"]
        assert len(made) == 3 and "answered none of the last 3 calls" in doc["stopped"]


def test_one_canned_reply_to_every_call_cannot_pass_next(capsys, tmp_path, server):
    status, out, err, doc = audit(capsys, tmp_path, server, "canned", "--min-score", "100")
    assert status == 1 and doc["score"] < 100
    nexts = [v for t in doc["tools"] for c in t["cases"] for v in c["verdicts"] if v["rule"] == "next"]
    assert nexts and all(v["status"] == "fail" and "the same reply came back" in v["reason"] for v in nexts)


def test_an_error_sent_as_a_success_fails_is_error_and_is_judged(capsys, tmp_path, server):
    status, out, err, doc = audit(capsys, tmp_path, server, "success")
    judged = [c for t in doc["tools"] for c in t["cases"] if c["reply"] and c["outcome"] == "judged"]
    assert judged and not [c for t in doc["tools"] for c in t["cases"] if c["outcome"] == "accepted"]
    for case in judged:
        verdicts = {v["rule"]: v for v in case["verdicts"]}
        assert verdicts["is_error"]["status"] == "fail" and "returned as a success" in verdicts["is_error"]["reason"]
        assert verdicts["structure"]["status"] == "fail"  # judged on every rule, not n/a


def test_the_sdks_words_are_told_from_the_authors_and_the_authors_part_is_scored(capsys, tmp_path, server):
    status, out, err, doc = audit(capsys, tmp_path, server, "sdk")
    origins = {c["origin"] for t in doc["tools"] for c in t["cases"] if c["outcome"] == "judged"}
    assert origins == {"sdk", "server"}
    assert doc["author_score"] is not None and doc["author_score"] != doc["score"]
    assert re.search(r"the author's part: [\d.]+ / 100; \d+ of \d+ judged replies were the MCP SDK's", out)


def test_bounds_patterns_and_formats_are_called_and_echoes_of_them_found(capsys, tmp_path, server):
    status, out, err, doc = audit(capsys, tmp_path, server, "plain", "--max-calls", "20")
    kinds = {c["kind"]: c for t in doc["tools"] for c in t["cases"] if t["name"] == "list_orders"}
    assert {"below_minimum", "above_maximum", "pattern", "format"} <= set(kinds)
    echo = {v["rule"]: v["status"] for v in kinds["pattern"]["verdicts"]}["echo"]
    assert echo == "fail"  # "No orders for ZQX7CANARY-not-matching": the value that broke the pattern came back


def test_the_html_shows_each_worst_reply_once(capsys, tmp_path, server):
    audit(capsys, tmp_path, server, "canned")
    page = (tmp_path / "canned.html").read_text()
    worst = page.split("<h2>The worst answer for each rule</h2>")[1].split("<h2>")[0]
    assert worst.count("<pre>") == len(set(re.findall(r"<pre>(.*?)</pre>", worst, re.S))) >= 1
    assert "<b>next</b>" in worst


def test_a_network_attempt_with_side_effects_off_is_blocked_and_reported(capsys, tmp_path, server):
    from atlas_kit.bridges.audit.network import netns_prefix

    if not netns_prefix():
        pytest.skip("no network namespace can be made here (Linux, unshare and user namespaces are needed)")
    status, out, err, doc = audit(capsys, tmp_path, server, "network")
    assert doc["network"].startswith("blocked") and "network blocked" in out
    assert any("tried to reach the network (the namespace stopped it)" in n for n in doc["notes"])
    replies = [c["reply"]["text"] for t in doc["tools"] for c in t["cases"] if c["reply"]]
    assert replies and not any(text == "connected" for text in replies)


def test_the_network_is_left_alone_when_allowed_and_said_where_it_cannot_be_blocked():
    from atlas_kit.bridges.audit.mcp_target import McpTarget

    allowed = McpTarget(command=["server"], network=True)
    assert not allowed._confine and allowed.network.startswith("allowed")
    assert McpTarget(command=["server"], network=False)._confine
    assert McpTarget(url="http://127.0.0.1:9/mcp", network=False).network.startswith("not blocked")


def test_the_help_documents_the_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for code in ("0 audited", "1 a --min-score or --fail-on threshold was missed", "2 bad input",
                 "3 the server failed the audit itself"):
        assert code in text

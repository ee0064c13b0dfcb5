"""Issue 29, over the real stdio server, as a hostile client: every request with an id gets exactly one answer,
arguments that are not an object get each style's own answer, the contract's messages say the real rule and name
no argument that does not exist, a blank `finish` is refused, and raw and generic answer in their own words."""
from __future__ import annotations

import json
from typing import Callable, Iterator

import pytest

from atlas_kit.dispatch.styles import GENERIC_PREFIX
from atlas_kit.types.results import read_records
from mcp_raw import RawServer, text_of

STYLES = ["raw", "generic", "contract"]


@pytest.fixture(scope="module", autouse=True)
def needs_mcp() -> None:
    pytest.importorskip("mcp")


def _opened(style: str, *extra: str) -> RawServer:
    server = RawServer("--style", style, *extra)
    server.initialize()
    server.request("prompts/get", {"name": "T04"})
    return server


@pytest.fixture(scope="module")
def shared() -> Iterator[Callable[[str], RawServer]]:
    """One open server per style for the tests whose calls are each answered on their own and end no episode; each
    must still exit 0 when the client hangs up after all of them (a test of its own starts its own server)."""
    servers: dict[str, RawServer] = {}

    def server(style: str) -> RawServer:
        if style not in servers:
            servers[style] = _opened(style)
        return servers[style]

    yield server
    ended = {}
    for style, opened in servers.items():  # every server is ended before any exit code is judged
        with opened:
            ended[style] = opened.finish()
    failed = {style: (code, err[-500:]) for style, (code, err) in ended.items() if code != 0}
    assert not failed, f"servers that did not exit 0 after the shared tests: {failed}"


BAD_SHAPES = [
    {"jsonrpc": "2.0", "id": "s", "method": "tools/call", "params": "bad"},
    {"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": 7},
    {"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": ["get_account"]},
    {"jsonrpc": "2.0", "id": 43, "method": "tools/call", "params": None},
    {"jsonrpc": "1.0", "id": 44, "method": "ping"},
    {"id": 45, "method": "ping"},
    {"jsonrpc": "2.0", "id": 46, "method": 12},
    {"jsonrpc": "2.0", "id": 47},
    {"jsonrpc": "2.0", "id": 48, "method": "tools/call", "params": {"arguments": {}}},
    {"jsonrpc": "2.0", "id": 49, "method": "tools/call", "params": {"name": 5, "arguments": {}}},
    {"jsonrpc": "2.0", "id": 50, "method": "no/such/method", "params": {}},
]


@pytest.mark.parametrize("style", STYLES)
def test_every_request_with_an_id_gets_exactly_one_answer(style):
    with _opened(style) as server:
        for message in BAD_SHAPES:
            server.send(message)
        server.send_line("{not json at all")  # no id to answer by: nothing comes back for it
        server.send({"jsonrpc": "2.0", "id": "last", "method": "ping"})
        expected = sorted([str(m["id"]) for m in BAD_SHAPES] + ["last"])
        answers = []
        while len(answers) < len(expected) and (answer := server.receive()) is not None:
            answers.append(answer)
        server.send({"jsonrpc": "2.0", "id": "after", "method": "ping"})  # a second answer to any of them would come by now
        while (answer := server.receive()) is not None and answer.get("id") != "after":
            answers.append(answer)
        assert server.finish()[0] == 0
    assert sorted(str(a.get("id")) for a in answers) == expected  # one answer each, none twice, none missing
    by_id = {a["id"]: a for a in answers}
    for rid in ("s", 41, 42, 44, 45, 46, 47):  # not a request MCP can read at all: JSON-RPC's Invalid Request
        assert by_id[rid]["error"]["code"] == -32600
    assert by_id[48]["error"]["code"] == by_id[49]["error"]["code"] == -32602 and by_id[50]["error"]["code"] == -32601


@pytest.mark.parametrize("style", STYLES)
def test_arguments_that_are_not_an_object_get_the_style_s_answer(style, shared):
    shapes = ["ACC-4471", [1, 2], 7, True]
    answers = [shared(style).call("get_account", arguments) for arguments in shapes]  # each answered on its own
    for arguments, answer in zip(shapes, answers):
        if style == "contract":  # a bad argument like any other: an isError result saying what to send
            assert answer["result"]["isError"] is True, arguments
            body = json.loads(text_of(answer))
            assert body == answer["result"]["structuredContent"] and body["error"] == "invalid_argument"
            assert body["next"]["branch"] == "retry_changed" and "argument" not in body["next"]
            assert "JSON object" in body["message"]
        else:  # what a server on the SDK says: its bare -32602, after the usual apology in the generic style
            prefix = f"{GENERIC_PREFIX} " if style == "generic" else ""
            assert answer["error"] == {"code": -32602, "message": f"{prefix}Invalid request parameters", "data": ""}, arguments


def test_a_min_length_above_one_is_said_as_the_real_bound(shared):
    server = shared("contract")
    address = json.loads(text_of(server.call("update_order", {"order_id": "ORD-10001", "action": "change_address",
                                                              "address": "no"})))
    reason = json.loads(text_of(server.call("escalate_to_human", {"account_id": "ACC-4471", "queue": "billing_refunds",
                                                                  "reason": "short"})))
    assert address["message"].startswith("Argument address must be at least 5 characters.")
    assert reason["message"].startswith("Argument reason must be at least 10 characters.")
    assert address["next"]["argument"] == "address" and reason["next"]["argument"] == "reason"


@pytest.mark.parametrize("tool,arguments", [("get_account", {"account_id": "ACC-4471", "input": 1}),
                                            ("finish", {"answer": "Done.", "answer_text": "Done."})])
def test_an_unknown_argument_names_no_argument_in_next(tool, arguments, shared):
    body = json.loads(text_of(shared("contract").call(tool, arguments)))  # a refused finish ends no episode
    assert body["error"] == "invalid_argument" and "it accepts only: " in body["message"]
    assert body["next"]["branch"] == "retry_changed" and "argument" not in body["next"]
    assert "input" not in json.dumps(body["next"]) and "answer_text" not in json.dumps(body)


@pytest.mark.parametrize("style", STYLES)
def test_a_blank_answer_is_refused_and_the_episode_stays_open(style, tmp_path):
    log = tmp_path / "atlas.jsonl"
    with _opened(style, "--log", str(log)) as server:
        blank = server.call("finish", {"answer": " \n\t "})
        graded = server.call("finish", {"answer": "Done."})
        assert server.finish()[0] == 0
    assert blank["result"]["isError"] is True and text_of(graded).startswith("Handed in. Ticket T04")
    said = text_of(blank)
    if style == "contract":
        body = json.loads(said)
        assert body["error"] == "invalid_argument" and body["next"]["argument"] == "answer" and "whitespace" in body["message"]
    else:
        assert said.endswith("ValueError: answer must not be blank") and said.startswith(GENERIC_PREFIX) == (style == "generic")
    [record] = read_records(log)
    assert record["stop_reason"] == "finished" and record["answer"] == "Done."


RAW_WORDS = {  # (tool, arguments) -> what jsonschema, a handler or the SDK would say, as a raw server says it
    ("finish", "missing"): "jsonschema.exceptions.ValidationError: 'answer' is a required property",
    ("finish", "unknown"): "jsonschema.exceptions.ValidationError: Additional properties are not allowed ('zz' was unexpected)",
    ("finish", "long"): "jsonschema.exceptions.ValidationError: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    ("get_account", "pattern"): "jsonschema.exceptions.ValidationError: '4471' does not match '^ACC-[0-9]{4}$'",
}
_ARGUMENTS = {"missing": {}, "unknown": {"answer": "Done.", "zz": 1}, "long": {"answer": "x" * 4001},
              "pattern": {"account_id": "4471"}}


@pytest.mark.parametrize("style", ["raw", "generic"])
def test_raw_and_generic_answer_in_their_own_words(style, shared):
    prefix = f"{GENERIC_PREFIX} " if style == "generic" else ""
    server = shared(style)
    said = {key: text_of(server.call(key[0], _ARGUMENTS[key[1]])) for key in RAW_WORDS}
    unknown = server.call("refund_everything", {})
    for key, words in RAW_WORDS.items():
        assert said[key].startswith(prefix + words), (key, said[key][:200])
        assert "retry_changed" not in said[key] and '"error"' not in said[key]
    assert unknown["error"] == {"code": -32602, "message": f"{prefix}Unknown tool: refund_everything"}


def test_the_contract_still_answers_an_unknown_tool_without_echoing_it(shared):
    unknown = shared("contract").call("refund_everything", {})
    assert unknown["error"]["code"] == -32602 and "refund_everything" not in unknown["error"]["message"]
    assert unknown["error"]["message"].startswith("No tool has that name on this server; call one of: get_account")

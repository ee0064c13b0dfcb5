"""`atlas-kit audit` from the command line: reports, --json and --html, the CI exit codes, and one line (exit 2),
never a traceback, for each way a target cannot be reached. Python targets run in-process; the stdio failures
start tiny processes (no MCP server at all)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from atlas_kit.cli import main
from raw_mcp import SERVE

ROOT = Path(__file__).resolve().parents[1]
TOOLS = "tests.audit_sample_tools"


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # --python imports from the current folder


def run(capsys, *argv):
    status = main(["audit", "--no-progress", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


def test_a_python_audit_prints_the_table_and_writes_json_and_html(capsys, tmp_path):
    status, out, err = run(capsys, "--python", f"{TOOLS}:BETA", "--json", str(tmp_path / "a.json"),
                           "--html", str(tmp_path / "a.html"))
    assert status == 0 and err == ""
    assert "get_invoice" in out and "server score" in out and "Limits: 10 s a call, 120 s in all" in out
    doc = json.loads((tmp_path / "a.json").read_text())
    assert doc["tools"][0]["name"] == "get_invoice" and 0 <= doc["score"] < 50
    assert {c["kind"] for c in doc["tools"][0]["cases"]} >= {"missing", "wrong_type", "canary"}
    assert "<table>" in (tmp_path / "a.html").read_text()


def test_the_contract_scores_above_the_sdks_repr_on_the_same_tool(capsys, tmp_path):
    scores = {}
    for name in ("BETA", "BETA_ASYNC", "CONTRACT", "ATLAS"):
        run(capsys, "--python", f"{TOOLS}:{name}", "--json", str(tmp_path / f"{name}.json"))
        scores[name] = json.loads((tmp_path / f"{name}.json").read_text())["score"]
    assert scores["BETA"] == scores["BETA_ASYNC"] < 50 < 90 < scores["CONTRACT"] and scores["ATLAS"] > 90


@pytest.mark.parametrize("name,options,expected", [
    ("BETA", ["--min-score", "90"], 1), ("CONTRACT", ["--min-score", "90"], 0),
    ("BETA", ["--fail-on", "echo,internals"], 1), ("CONTRACT", ["--fail-on", "echo,internals"], 0),
])
def test_ci_thresholds_set_the_exit_code(capsys, name, options, expected):
    status, _, err = run(capsys, "--python", f"{TOOLS}:{name}", *options)
    assert status == expected
    if expected:
        assert "below --min-score 90" in err or "fail internals (--fail-on)" in err


def test_your_cases_are_run_and_reported(capsys, tmp_path):
    cases = tmp_path / "c.jsonl"
    cases.write_text('{"tool": "get_invoice", "arguments": {"invoice_id": "INV-99999"}, "why": "no such invoice"}\n'
                     '{"tool": "no_such_tool", "arguments": {}}\n')
    status, out, _ = run(capsys, "--python", f"{TOOLS}:CONTRACT", "--cases", str(cases), "--allow-side-effects",
                         "--json", str(tmp_path / "a.json"))
    doc = json.loads((tmp_path / "a.json").read_text())
    first = doc["tools"][0]["cases"][0]
    assert status == 0 and first["kind"] == "user" and first["outcome"] == "judged" and first["valid"] is True
    assert doc["unmatched_cases"] == [{"tool": "no_such_tool", "why": "your case"}] and "'no_such_tool'" in out


@pytest.mark.parametrize("argv,words", [
    (["--", "no-such-server-zz"], "command not found: no-such-server-zz is not on PATH"),
    (["--", sys.executable, "-c", "import sys; sys.stderr.write('boom: no config\\n'); sys.exit(3)"],
     "the server exited at start, before the MCP handshake; its last words on stderr: 'boom: no config'"),
    (["--", "echo", "hello"], "not an MCP server: it wrote text that is not JSON-RPC on stdout"),
    (["--url", "http://127.0.0.1:9/mcp"], "cannot connect to http://127.0.0.1:9/mcp"),
    (["--python", "no_such_module_zz:TOOLS"], "cannot import no_such_module_zz"),
    (["--python", f"{TOOLS}:NOT_TOOLS"], "holds str; give a list of atlas_kit Tools"),
    (["--python", f"{TOOLS}:BETA", "--", "x"], "give exactly one target"),
    ([], "give exactly one target"),
])
def test_each_failure_to_reach_a_target_is_one_line_and_exit_2(capsys, argv, words):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("atlas-kit audit: ") and words in err, err


def test_a_bad_cases_file_is_one_line_and_exit_2(capsys, tmp_path):
    bad = tmp_path / "c.jsonl"
    bad.write_text("{oops\n")
    status, _, err = run(capsys, "--python", f"{TOOLS}:BETA", "--cases", str(bad))
    assert status == 2 and "line 1: not valid JSON" in err and err.count("\n") == 1


def test_the_progress_bar_counts_calls_by_tool(monkeypatch):
    import io

    from atlas_kit.cli.audit import _Bar

    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    bar = _Bar(hidden=False)
    bar.planned(2)
    bar.done("get_invoice")
    bar.done("get_invoice")
    bar.close()
    assert "get_invoice:" in err.getvalue() and "/2 [" in err.getvalue() and "call/s" in err.getvalue()
    hidden = _Bar(hidden=True)
    hidden.planned(2)
    hidden.done("x")
    assert "x:" not in err.getvalue()


CRASHING = '''
import os
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
server = MCPServer("crashy")

@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def get_thing(thing_id: str) -> str:
    """Get one thing by its id."""
    os._exit(1)  # a valid call kills the server

server.run("stdio")
'''


def test_a_server_that_dies_mid_audit_is_reported_and_exits_3(capsys, tmp_path):
    pytest.importorskip("mcp")
    script = tmp_path / "crashy.py"
    script.write_text(CRASHING)
    status, out, err = run(capsys, "--", sys.executable, str(script))
    assert status == 3 and "the server failed the audit: the server closed the connection during get_thing's" in err
    assert "not run: the server closed the connection" in out and "server score: 100" not in out


def test_the_help_names_every_rule_the_rubric_has(capsys):
    from atlas_kit.contract.rubric import RULES

    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ": " + ", ".join(RULES) + " (" not in text and ", ".join(RULES) in text


def test_the_server_gets_the_environment_without_secrets_unless_passed(monkeypatch):
    pytest.importorskip("mcp")
    from atlas_kit.bridges.audit.mcp_target import McpTarget

    for name, value in (("PLAIN_SETTING", "a"), ("ANTHROPIC_API_KEY", "x" * 20), ("GITHUB_TOKEN", "y" * 20),
                        ("DB_PASSWORD", "z" * 12), ("MY_SERVICE_TOKEN", "w" * 12)):
        monkeypatch.setenv(name, value)
    env = McpTarget(command=["server"], keep=("MY_SERVICE_TOKEN",), env={"EXTRA": "1"})._environment()
    assert env["PLAIN_SETTING"] == "a" and env["MY_SERVICE_TOKEN"] == "w" * 12 and env["EXTRA"] == "1"
    assert not {"ANTHROPIC_API_KEY", "GITHUB_TOKEN", "DB_PASSWORD"} & set(env)
    assert "PATH" in env  # the server can still find its interpreter


TASK_ONLY = SERVE + '''
TOOLS = [{"name": "research", "description": "Research a topic, as a task.", "execution": {"taskSupport": "required"},
          "inputSchema": {"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"]},
          "annotations": {"readOnlyHint": True}},
         {"name": "lookup", "description": "Look a word up.",
          "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]},
          "annotations": {"readOnlyHint": True}}]


def answer(method, params):
    if method == "tools/list":
        return {"result": {"tools": TOOLS}}
    if method == "tools/call" and params.get("name") == "research":
        return {"error": {"code": -32601, "message": "Tool research requires task augmentation (taskSupport: 'required')"}}
    if method == "tools/call":
        return {"result": {"content": [{"type": "text", "text": "Argument word is required: give the word to look up."}],
                           "isError": True}}
    return {"result": {}}


serve(answer, "task-only")
'''


def test_a_tool_that_must_be_called_as_a_task_is_not_judged_on_the_refusal(capsys, tmp_path):
    pytest.importorskip("mcp")
    script = tmp_path / "task_only.py"
    script.write_text(TASK_ONLY)
    out_json = tmp_path / "audit.json"
    status, out, err = run(capsys, "--json", str(out_json), "--", sys.executable, str(script))
    doc = json.loads(out_json.read_text())
    research = next(t for t in doc["tools"] if t["name"] == "research")
    assert research["score"] is None and research["cases"]
    assert all(c["outcome"] == "skipped" and "taskSupport: required" in c["reason"] for c in research["cases"])
    lookup = next(t for t in doc["tools"] if t["name"] == "lookup")
    assert lookup["score"] is not None and status == 0
    assert "must be called as a task" in out

"""`atlas-kit audit` against targets that misbehave: a Python tool that never returns or exits the process, an
import that hangs, a server that lists forever or repeats its cursor, names and texts with terminal escapes, a
malformed tool list, secrets in the environment or the URL, and answers with nothing in them to judge. Each case was
found by auditing a target the audit had not seen; each test fails on the code before its fix."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from atlas_kit.cli import main
from atlas_kit.contract.rubric import judge
from raw_mcp import SERVE

pytest.importorskip("mcp")

RAW = SERVE + '''
MODE = sys.argv[1]
SCHEMA = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}


def tool(name):
    return {"name": name, "description": "Look a thing up.", "inputSchema": SCHEMA,
            "annotations": {"readOnlyHint": True}}


def listing(params):
    cursor = params.get("cursor") or ""
    page = int(cursor) if cursor.isdigit() else 0
    if MODE == "repeat":
        return {"tools": [tool("lookup")], "nextCursor": "same"}
    if MODE == "pages":
        return {"tools": [tool(f"t{page}")], **({"nextCursor": str(page + 1)} if page < 59 else {})}
    if MODE == "slow":
        time.sleep(0.4)
        return {"tools": [tool(f"t{page}")], "nextCursor": str(page + 1)}
    if MODE == "names":
        return {"tools": [tool("a\\nb"), tool("\\x1b[2Jwiped")]}
    if MODE == "badschema":
        return {"tools": [tool("fine"), {"name": "broken", "inputSchema": {"type": "string"}}]}
    return {"tools": [tool("lookup")]}


def called(params):
    if os.environ.get("CALLS_LOG"):
        open(os.environ["CALLS_LOG"], "a").write("called\\n")
    if MODE == "hang":
        time.sleep(60)
    text = {"echo": "Error: bad id " + json.dumps(params.get("arguments") or {}), "empty": "",
            "ansi": "\\x1b[2J\\x1b[Hfake: server score 100"}.get(MODE, "Error: bad id")
    content = [{"type": "text", "text": text}]
    if MODE == "resource":
        content = [{"type": "resource", "resource": {"uri": "file:///x", "mimeType": "text/plain",
                    "text": "Traceback (most recent call last): File /srv/app/db.py"}}]
    return {"content": content, "isError": True}


def answer(method, params):
    return {"result": listing(params) if method == "tools/list" else called(params) if method == "tools/call" else {}}


serve(answer)
'''

PYTOOLS = '''
import os, sys, time
from anthropic import beta_tool

@beta_tool
def blocker(id: str) -> str:
    """Look a thing up."""
    time.sleep(3600)
    return "never"

@beta_tool
def exiter(id: str) -> str:
    """Look a thing up."""
    sys.exit(0)

@beta_tool
def leaker(id: str) -> str:
    """Look a thing up."""
    raise ValueError("config: " + os.environ.get("MY_SERVICE_SECRET", "") + " / " + os.environ.get("DB_PASS", ""))

BLOCK, EXIT, LEAK = [blocker], [exiter], [leaker]
'''


@pytest.fixture
def raw(tmp_path: Path) -> Path:
    script = tmp_path / "raw.py"
    script.write_text(RAW)
    return script


@pytest.fixture
def pytools(tmp_path: Path, monkeypatch) -> str:
    (tmp_path / "hostile_tools.py").write_text(PYTOOLS)
    (tmp_path / "hangs_at_import.py").write_text("import time\ntime.sleep(3600)\nT = []\n")
    (tmp_path / "exits_at_import.py").write_text("raise SystemExit(0)\n")
    monkeypatch.chdir(tmp_path)
    return "hostile_tools"


def _audit(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["audit", "--no-progress", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _cli(*argv: str, cwd: Path, timeout: float = 60) -> tuple[int, float, str]:
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "atlas_kit", "audit", "--no-progress", *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)
    return done.returncode, time.monotonic() - start, done.stdout + done.stderr


def test_a_python_tool_that_never_returns_does_not_keep_the_process_alive(pytools, tmp_path):
    code, seconds, out = _cli("--call-timeout", "0.5", "--allow-side-effects", "--python", f"{pytools}:BLOCK",
                              cwd=tmp_path)
    assert code == 0 and seconds < 20 and "timeout" in out


def test_an_import_that_hangs_or_exits_is_one_line(pytools, capsys):
    start = time.monotonic()  # the hanging import is left on a daemon thread, which ends with the process
    code, out, err = _audit(capsys, "--connect-timeout", "1", "--python", "hangs_at_import:T")
    assert code == 2 and time.monotonic() - start < 10 and "did not finish within 1 s" in err
    assert len(err.strip().splitlines()) == 1
    code, out, err = _audit(capsys, "--python", "exits_at_import:T")
    assert code == 2 and "raised SystemExit" in err


def test_a_tool_that_exits_the_process_is_an_invalid_case_not_a_silent_pass(pytools, capsys):
    code, out, err = _audit(capsys, "--allow-side-effects", "--python", f"{pytools}:EXIT")
    assert code == 0 and "raised SystemExit, which ends the process" in out


def test_no_secret_value_reaches_the_report_even_from_a_python_tool(pytools, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("MY_SERVICE_SECRET", "plainvalue777x")
    monkeypatch.setenv("DB_PASS", "hunter2hunter2")
    report = tmp_path / "a.json"
    code, out, err = _audit(capsys, "--json", str(report), "--allow-side-effects", "--python", f"{pytools}:LEAK")
    assert code == 0 and "config:" in report.read_text()
    for text in (out, report.read_text()):
        assert "plainvalue777x" not in text and "hunter2hunter2" not in text


def test_a_server_gets_no_password_variable_and_a_url_login_is_never_shown(raw, capsys, monkeypatch, tmp_path):
    from atlas_kit.bridges.audit.mcp_target import McpTarget

    for name, value in (("DB_PASS", "a" * 10), ("MYSQL_PWD", "b" * 10), ("GH_PAT", "c" * 10),
                        ("SENTRY_DSN", "d" * 10), ("SOME_URL", "postgres://admin:pw123456@db/x")):
        monkeypatch.setenv(name, value)
    env = McpTarget(command=["server"])._environment()
    assert not {"DB_PASS", "MYSQL_PWD", "GH_PAT", "SENTRY_DSN", "SOME_URL"} & set(env) and "PWD" in env
    code, out, err = _audit(capsys, "--url", "http://user:hunter2pass@127.0.0.1:9/mcp", "--connect-timeout", "2")
    assert code == 2 and "hunter2pass" not in err and "[redacted]@127.0.0.1:9" in err
    code, out, err = _audit(capsys, "--url", "file:///etc/passwd")
    assert code == 2 and "is not an http:// or https:// address" in err


def test_echo_is_not_judged_when_nothing_was_planted(raw, capsys, tmp_path):
    report = tmp_path / "a.json"
    _audit(capsys, "--json", str(report), "--", sys.executable, str(raw), "echo")
    cases = json.loads(report.read_text())["tools"][0]["cases"]
    echo = {c["kind"]: next(v["status"] for v in c["verdicts"] if v["rule"] == "echo") for c in cases}
    assert echo["missing"] == "n/a" and echo["canary"] == "fail"


def test_an_empty_error_passes_no_rule_that_asks_for_something_said():
    verdicts = {v.rule: v.status for v in judge("", is_error=True, arguments={"id": "x"}).verdicts}
    assert verdicts["echo"] == verdicts["internals"] == verdicts["length"] == "n/a"
    assert verdicts["structure"] == "fail" and verdicts["next"] == "fail"


def test_an_embedded_resources_text_is_what_is_judged(raw, capsys):
    code, out, err = _audit(capsys, "--", sys.executable, str(raw), "resource")
    assert "internals: holds what belongs in the trace: traceback" in out


def test_a_gate_that_judged_nothing_does_not_pass(raw, capsys):
    code, out, err = _audit(capsys, "--fail-on", "echo", "--call-timeout", "0.3", "--max-calls", "1", "--",
                            sys.executable, str(raw), "hang")
    assert code == 3 and "no answer could be judged on echo" in err and "no call got a usable answer" in err


@pytest.mark.parametrize("mode, words", [("repeat", "the server's tool list repeats"),
                                         ("pages", "listed more than 50 pages of tools; the audit took the first 50")])
def test_a_listing_that_repeats_or_runs_long_is_said(raw, capsys, mode, words, tmp_path):
    report = tmp_path / "a.json"
    code, out, err = _audit(capsys, "--max-calls", "1", "--json", str(report), "--", sys.executable, str(raw), mode)
    doc = json.loads(report.read_text())
    assert code == 0 and words in out and any(words in n for n in doc["notes"])
    names = [t["name"] for t in doc["tools"]]
    assert len(names) == len(set(names)) == (1 if mode == "repeat" else 50)


def test_the_whole_listing_is_bounded_by_the_connect_timeout(raw, capsys):
    start = time.monotonic()
    code, out, err = _audit(capsys, "--connect-timeout", "2", "--", sys.executable, str(raw), "slow")
    assert code == 2 and time.monotonic() - start < 10 and "did not finish listing its tools within 2 s" in err


def test_escapes_in_names_and_answers_reach_no_terminal(raw, capsys):
    for mode in ("names", "ansi"):
        code, out, err = _audit(capsys, "--", sys.executable, str(raw), mode)
        assert "\x1b" not in out and "\\x1b" in out
    code, out, err = _audit(capsys, "--", sys.executable, str(raw), "names")
    rows = [line for line in out.splitlines() if line.startswith(("a\\nb", "\\x1b"))]
    assert len(rows) == 2


def test_a_malformed_tool_list_names_the_tool_and_the_field(raw, capsys):
    code, out, err = _audit(capsys, "--", sys.executable, str(raw), "badschema")
    assert code == 2 and "tool 1: inputSchema.type" in err and "errors.pydantic.dev" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_report_that_cannot_be_written_is_found_before_any_call(raw, capsys, tmp_path, monkeypatch):
    log = tmp_path / "calls.log"
    monkeypatch.setenv("CALLS_LOG", str(log))
    for argv, words in ((["--json", str(tmp_path)], "is a folder"),
                        (["--json", str(tmp_path / "no" / "a.json")], "does not exist"),
                        (["--json", str(tmp_path / "x"), "--html", str(tmp_path / "x")], "both name")):
        code, out, err = _audit(capsys, *argv, "--", sys.executable, str(raw), "plain")
        assert code == 2 and words in err
    assert not log.exists()


def test_cases_with_nan_are_refused(raw, capsys, tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"tool": "lookup", "arguments": {"id": NaN}}\n')
    code, out, err = _audit(capsys, "--cases", str(cases), "--", sys.executable, str(raw), "plain")
    assert code == 2 and "NaN is not JSON" in err


def test_a_server_that_prints_to_stdout_during_calls_is_told_so(raw, capsys, tmp_path):
    script = tmp_path / "junk.py"
    noisy = '    if MODE == "junk":\n        print("debug: got a call", flush=True)\n    if MODE == "hang":'
    script.write_text(RAW.replace('    if MODE == "hang":', noisy))
    code, out, err = _audit(capsys, "--max-calls", "1", "--", sys.executable, str(script), "junk")
    assert code == 0 and "not JSON-RPC on stdout while answering calls" in out
    code, out, err = _audit(capsys, "--max-calls", "1", "--", sys.executable, str(raw), "plain")
    assert "not JSON-RPC" not in out

"""The recorded audit chapter 10 ships (chapters/data/audit_mcp-server-time_2026.10.19.json): it names the server,
its version and the date, holds no path of the machine it was recorded on, and is what `atlas-kit audit` and
`rubric.judge` say about the answers in it, so the chapter's figures can be recomputed from the file alone."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from atlas_kit.bridges.audit.cases import CANARY
from atlas_kit.contract.rubric import RULES, judge, server_score

FILE = Path(__file__).resolve().parent.parent / "chapters" / "data" / "audit_mcp-server-time_2026.10.19.json"
MACHINE_PATH = re.compile(r"(/root/|/home/[a-z]|/tmp/[A-Za-z0-9]|/work/|site-packages|/Users/|[A-Z]:\\\\)")


@pytest.fixture(scope="module")
def doc() -> dict:
    return json.loads(FILE.read_text())


def judged(doc: dict) -> list[tuple[str, dict]]:
    return [(t["name"], c) for t in doc["tools"] for c in t["cases"] if c["outcome"] == "judged"]


def test_the_file_says_which_server_which_version_and_when(doc):
    about = doc["recorded"]
    assert (about["server"], about["version"]) == ("mcp-server-time", "2026.10.19") and about["version"] in FILE.name
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", about["date"]) and "<venv>" in about["redacted"]
    assert set(about["schemas"]) == {t["name"] for t in doc["tools"]}


def test_no_path_of_the_recording_machine_is_left(doc):
    text = FILE.read_text()
    assert not MACHINE_PATH.search(text), MACHINE_PATH.search(text)
    assert doc["target"] == "<venv>/bin/mcp-server-time"
    leaked = [c["reply"]["text"] for _, c in judged(doc) if "<venv>/" in c["reply"]["text"]]
    assert leaked, "the server's file-path answers should still show where the path was (redacted)"


def test_every_answer_without_a_redacted_path_is_judged_again_the_same(doc):
    about, again = doc["recorded"], 0
    for tool, case in judged(doc):
        if "<venv>" in case["reply"]["text"]:
            continue  # its text was changed by the redaction, after it was judged
        planted = CANARY in json.dumps(case["arguments"])  # as the audit does: only a case that carries it can echo it
        verdict = judge(case["reply"]["text"], is_error=case["reply"]["is_error"], arguments=case["arguments"],
                        schema=about["schemas"][tool], canary=CANARY if planted else None, short_echoes=True)
        assert [(v.rule, v.status) for v in verdict.verdicts] == [(v["rule"], v["status"]) for v in case["verdicts"]]
        assert round(100 * verdict.score, 1) == case["score"]
        again += 1
    assert again >= 10


def test_the_scores_follow_the_documented_formula(doc):
    for tool in doc["tools"]:
        scores = [c["score"] for c in tool["cases"] if c["score"] is not None]
        assert tool["score"] == pytest.approx(sum(scores) / len(scores), abs=0.06)
        for rule in RULES:
            counts = tool["rules"][rule]
            statuses = [v["status"] for c in tool["cases"] for v in c["verdicts"] if v["rule"] == rule]
            assert (counts["pass"], counts["fail"]) == (statuses.count("pass"), statuses.count("fail"))
    assert doc["score"] == pytest.approx(server_score(t["score"] for t in doc["tools"]), abs=0.06)


def test_the_long_argument_comes_back_whole(doc):
    [(tool, case)] = [(t, c) for t, c in judged(doc) if t == "get_current_time" and c["kind"] == "too_long"]
    sent = case["arguments"]["timezone"]
    assert len(sent) == 5000 and sent in case["reply"]["text"]

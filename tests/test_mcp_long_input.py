"""Issue 29, over the real stdio server: a megabyte argument is answered and graded in every style, resident memory
stays flat over such episodes (ten in raw style, five in the others), the log keeps a bounded part of each call
(and says so), and `finish` tells the model its grade in plain words that name nothing the ticket expected."""
from __future__ import annotations

import json
import re
import time

import pytest

from atlas_kit.atlas import TICKETS, ticket
from atlas_kit.atlas.formats import MONEY, RECORD_ID
from atlas_kit.atlas.grade import SCANNED_CHARS
from atlas_kit.atlas.figures import invented_figures
from atlas_kit.atlas.verdict import PLAIN
from atlas_kit.bridges.mcp.episode import CALL_LOG_CHARS, open_episode
from atlas_kit.types.results import read_records
from mcp_raw import RawServer, text_of

MEGABYTE = "centsx" * (1_000_000 // 6)  # a long word holding "cents": the old grader's pattern backtracked on it
EPISODES = 10


@pytest.fixture(scope="module", autouse=True)
def needs_mcp() -> None:
    pytest.importorskip("mcp")


# Ten episodes where the text carries the whole argument (raw), five in the others; benchmarks/mcp_long_argument.py
# times ten of them in every style.
@pytest.mark.parametrize("style, episodes", [("raw", EPISODES), ("generic", 5), ("contract", 5)])
def test_a_megabyte_argument_is_answered_and_graded_and_memory_stays_flat(style, episodes, tmp_path):
    log = tmp_path / "atlas.jsonl"
    rss, slowest = [], 0.0
    with RawServer("--style", style, "--log", str(log)) as server:
        server.initialize()
        for _ in range(episodes):
            server.request("prompts/get", {"name": "T04"})
            start = time.perf_counter()
            answered = server.call("get_account", {"account_id": MEGABYTE})
            refused = server.call("finish", {"answer": MEGABYTE})  # past maxLength: refused, in the style's words
            graded = server.call("finish", {"answer": "Done. " + MEGABYTE[:3000]})
            slowest = max(slowest, time.perf_counter() - start)
            assert answered["result"]["isError"] is True and refused["result"]["isError"] is True
            assert text_of(graded).startswith("Handed in. Ticket T04") and graded["result"]["isError"] is False
            rss.append(server.rss_mb())
        code, err = server.finish()
    print(f"\n{style}: slowest episode (1 MB call, 1 MB finish, graded finish) {slowest:.2f} s; "
          f"RSS by episode (MB): {', '.join(f'{r:.0f}' for r in rss)}")
    assert code == 0 and "Traceback" not in err
    # Flat: what one episode holds goes with it. Keeping each megabyte (as the log once did) grows ~25 MB an episode.
    assert rss[-1] - rss[2] < 12, rss
    records = read_records(log)
    assert len(records) == episodes and all(r["stop_reason"] == "finished" for r in records)
    [call] = records[0]["calls"]
    sent = len(json.dumps({"account_id": MEGABYTE}, separators=(",", ":")))
    assert call["clipped"] is True and call["arguments"].endswith(f" … [cut: {sent:,} characters in all]")
    assert len(call["arguments"]) < CALL_LOG_CHARS + 60 and len(call["result"]) < CALL_LOG_CHARS + 60
    assert max(len(line) for line in log.read_text().splitlines()) < 4 * CALL_LOG_CHARS + 8_000


def test_a_short_call_is_logged_whole_and_not_marked_clipped(tmp_path):
    log = tmp_path / "atlas.jsonl"
    with RawServer("--log", str(log)) as server:
        server.initialize()
        server.request("prompts/get", {"name": "T04"})
        server.call("get_account", {"account_id": "ACC-4471"})
        server.call("finish", {"answer": "Done."})
        assert server.finish()[0] == 0
    [call] = read_records(log)[0]["calls"]
    assert call["arguments"] == {"account_id": "ACC-4471"} and call["clipped"] is False
    assert json.loads(call["result"])["account_id"] == "ACC-4471"


def test_grading_reads_a_bounded_part_of_each_result():
    # A figure past SCANNED_CHARS of a result counts as not given; one inside it as given.
    near, far = "x" * 10 + " $12.34", "x" * SCANNED_CHARS + " $56.78"
    episode = open_episode("T04", style="raw")
    episode.call("get_account", {"account_id": near + far})
    episode.hand_in({"answer": "It came to $12.34 and $56.78."})
    assert episode.result is not None and "fabrication" in episode.result.labels
    [why] = [r for r in episode.result.reasons if "no tool returned" in r]
    assert "$56.78" in why and "$12.34" not in why
    assert invented_figures("", [near], "$12.34") == [] and invented_figures("", [far[:SCANNED_CHARS]], "$56.78") == ["$56.78"]


def test_a_run_of_digits_too_long_for_int_is_no_figure():
    # int() refuses more than 4,300 digits: a result holding such a run once crashed the grader.
    assert invented_figures("", ["1" * 50_000, "$" + "9" * 50_000], "3 units") == ["3 units"]


def test_finish_tells_the_grade_in_plain_words_over_stdio(tmp_path):
    log = tmp_path / "atlas.jsonl"
    with RawServer("--log", str(log)) as server:
        server.initialize()
        server.request("prompts/get", {"name": "T04"})
        wrong = text_of(server.call("finish", {"answer": "I refunded $650.00 on INV-20411."}))
        server.request("prompts/get", {"name": "T04"})
        server.call("issue_refund", {"invoice_id": "INV-20411", "amount_cents": 65000, "reason": "Course cancelled."})
        server.call("escalate_to_human", {"account_id": "ACC-4471", "queue": "billing_refunds",
                                          "reason": "Full refund of $650.00 on INV-20411: course cancelled by Atlas."})
        right = text_of(server.call("finish", {"answer": ticket("T04").script.final}))
        assert server.finish()[0] == 0
    logged = read_records(log)
    assert any("Escalation(account_id='ACC-4471'" in r for r in logged[0]["reasons"])  # the log keeps the full why
    assert wrong.startswith("Handed in. Ticket T04, contract style: not correct. Why: ")
    assert "Atlas's records did not end as the ticket required" in wrong
    for leak in ("Escalation", "ACC-4471", "billing_refunds", "Labels", "a person"):
        assert leak not in wrong, leak
    assert right == "Handed in. Ticket T04, contract style: correct. Why: the end state and the answer match the ticket."


def _expected(reasons: tuple[str, ...]) -> set[str]:
    """What the grader's full reasons name: quoted phrases, ids, amounts, record reprs."""
    text = " ".join(reasons)
    return ({q for q in re.findall(r"'([^']{3,})'", text)} | set(RECORD_ID.findall(text)) | set(MONEY.findall(text))
            | {m for m in re.findall(r"\b(?:Refund|Change|Escalation)\(", text)})


@pytest.mark.parametrize("answer", ["Done.", "I could not do it, sorry.", "I refunded $999.00 and sent 5 units."])
def test_no_ticket_s_reply_to_finish_names_what_it_expected(answer):
    for tid in TICKETS:
        episode = open_episode(tid, style="contract")
        reply, result = episode.hand_in({"answer": answer})
        assert result is not None and not result.correct
        said = reply["content"][0]["text"]
        leaked = {e for e in _expected(result.reasons) if e in said and e not in answer}
        assert not leaked, (tid, leaked, said)
        assert set(said.split("Why: ")[1].rstrip(".").split("; ")) <= set(PLAIN.values()), said

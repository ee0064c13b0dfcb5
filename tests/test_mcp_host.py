"""The stand-in driving Atlas over the in-memory MCP client: the wire changes nothing, and says simulated."""
from __future__ import annotations

import pytest

from atlas_kit.agent import run_agent
from atlas_kit.atlas import TICKETS, atlas_session, grade
from atlas_kit.experiments.metrics import recovery
from atlas_kit.models.standin.model import OFFLINE_MODEL, offline_client
from atlas_kit.types.results import read_records
from atlas_kit.experiments.results import source_label


@pytest.fixture(scope="module", autouse=True)
def mcp_names() -> None:
    """Import the MCP SDK (atlas_kit.bridges.mcp.host and mcp_server are built on it) when a test here first runs, not at
    collection: every xdist worker collects this file. Without the mcp extra each test here is skipped."""
    global simulate, AtlasMCP
    pytest.importorskip("mcp")
    from atlas_kit.bridges.mcp.host import simulate
    from atlas_kit.bridges.mcp.server import AtlasMCP


@pytest.mark.parametrize("style", ["raw", "generic", "contract"])
def test_every_ticket_over_mcp_ends_as_it_does_without_it(style):
    seed = 2
    hosted = simulate(AtlasMCP(style=style, seed=seed, simulated=True), list(TICKETS), seed=seed)
    assert [h.ticket for h in hosted] == list(TICKETS)
    for h in hosted:
        direct = run_agent(offline_client(seed=seed), atlas_session(h.ticket, style=style, seed=seed, break_loops=False),
                           model=OFFLINE_MODEL)
        g, r = grade(direct), h.record
        assert (r["correct"], r["labels"], r["tool_calls"], r["stop_reason"]) == (
            g.correct, sorted(g.labels), direct.tool_calls, direct.stop_reason), h.ticket
        assert r["answer"] == direct.final_text
        assert r["source"].startswith("simulated") and r["model"] == OFFLINE_MODEL and r["client"].startswith("atlas-offline-host")


def test_the_host_refuses_a_server_that_would_label_its_runs_live():
    with pytest.raises(ValueError, match="simulated=True"):
        simulate(AtlasMCP(), ["T01"])


def test_a_simulated_session_logs_records_that_metrics_and_charts_read(tmp_path):
    from atlas_kit.face.charts import recovery_by_style  # matplotlib, imported only by the one test here that draws

    log = tmp_path / "learner.jsonl"
    for style in ("raw", "contract"):
        simulate(AtlasMCP(style=style, simulated=True, log=log), ["T04", "T05", "T07", "T09"])
    records = read_records(log)
    assert len(records) == 8 and source_label(records) == "simulated (offline stand-in)"
    by_style = {s: recovery([r for r in records if r["style"] == s]) for s in ("raw", "contract")}
    assert by_style["contract"].n == 4 and by_style["contract"].successes == 4
    assert by_style["raw"].successes < by_style["contract"].successes
    ax = recovery_by_style(records)
    assert "simulated" in ax.get_title()
    hosted = simulate(AtlasMCP(simulated=True), ["T04"])
    [call, escalate] = hosted[0].exchanges
    assert call.is_error and call.result["structuredContent"]["next"]["tool"] == "escalate_to_human"
    assert not escalate.is_error and hosted[0].verdict.startswith("Handed in. Ticket T04, contract style: correct")

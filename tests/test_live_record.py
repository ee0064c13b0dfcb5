"""`--record` (record=) never shrinks or replaces a cassette: it adds to one and says so, or it is refused with one
line before anything is sent. Through a real local HTTP server; the cassette's bytes are compared, not its size."""
from __future__ import annotations

import errno
import json
import os

import pytest
from live_api import live  # noqa: F401 (a fixture, used by name)

from atlas_kit.agent import run_agent
from atlas_kit.atlas import atlas_session
from atlas_kit.cli import main
from atlas_kit.models.cassette import Cassette
from atlas_kit.models.choose import choose_model
from atlas_kit.models.standin.model import OfflineModel

MODEL = "claude-sonnet-5-5"
BASE = ["experiment", "--model", MODEL, "--styles", "contract", "--faults", "on", "--trials", "1", "--no-progress",
        "--no-charts", "--yes"]


@pytest.fixture
def server(live):
    """The stand-in behind a local HTTP server, a live model's environment pointed at it (live_api.live)."""
    return live(OfflineModel(seed=0))


def _record(tmp_path, tickets: str, out: str, cassette) -> int:
    return main([*BASE, "--tickets", tickets, "--out", str(tmp_path / out), "--record", str(cassette)])


def test_recording_onto_a_cassette_adds_to_it_keeps_every_call_and_says_so(server, tmp_path, capsys):
    cassette = tmp_path / "class.json"
    assert _record(tmp_path, "T01,T04", "first", cassette) == 0
    before = Cassette.load(cassette)
    capsys.readouterr()
    assert _record(tmp_path, "T02,T05", "second", cassette) == 0  # another sweep, another --out, the same cassette
    err = capsys.readouterr().err
    after = Cassette.load(cassette)
    assert f"Recording to class.json (adding to its {len(before.entries)} recorded call(s))." in err
    assert after.entries[:len(before.entries)] == before.entries  # every call it held, unchanged, in its place
    assert len(after.entries) == len(server.messages) and len(after.episodes()) == 4
    assert after.recorded_on == before.recorded_on
    for tickets in ("T01,T04", "T02,T05"):  # each sweep still replays from the one cassette
        replay = [BASE[0], *BASE[3:-1]]  # a replay names no model (the cassette holds it) and asks nothing
        assert main([*replay, "--tickets", tickets, "--cassette", str(cassette), "--out",
                     str(tmp_path / f"replay-{tickets}")]) == 0


@pytest.mark.parametrize("case", ["episodes it holds", "read-only", "not a cassette", "another model", "empty file"])
def test_a_cassette_recording_would_change_is_refused_with_one_line_before_anything_is_sent(server, tmp_path, capsys,
                                                                                            case):
    cassette = tmp_path / "class.json"
    assert _record(tmp_path, "T01,T04", "first", cassette) == 0
    says = {"episodes it holds": "already holds 2 of the episodes this sweep would record (the first: ",
            "read-only": "is read-only; a recording adds to a cassette and never overwrites one that is "
                         "write-protected",
            "not a cassette": "holds a file that is not an atlas_kit cassette",
            "another model": "holds calls of claude-opus-4-1, and this run records claude-sonnet-5-5",
            "empty file": "holds a file that is not an atlas_kit cassette"}[case]
    if case == "read-only":
        os.chmod(cassette, 0o444)  # refused by its mode bits, so as root too (root may write any file)
    elif case == "not a cassette":
        cassette = tmp_path / "first" / "experiment.jsonl"  # the results file, given by mistake
    elif case == "another model":
        held = Cassette.load(cassette)
        Cassette(model="claude-opus-4-1", recorded_on=held.recorded_on, entries=held.entries).save(cassette)
    elif case == "empty file":
        cassette = tmp_path / "empty.json"
        cassette.write_bytes(b"")
    kept, sent = cassette.read_bytes(), len(server.requests)
    capsys.readouterr()
    tickets = "T01,T04" if case == "episodes it holds" else "T02"
    assert _record(tmp_path, tickets, "again", cassette) == 2
    err = capsys.readouterr().err
    assert says in err and "nothing was sent" in err.lower(), err
    assert err.count("\n") == 1 and "Traceback" not in err  # one line
    assert len(server.requests) == sent and cassette.read_bytes() == kept  # not a request, not a byte changed
    assert not (tmp_path / "again" / "experiment.jsonl").exists()


def test_record_in_python_adds_to_the_cassette_it_names(server, tmp_path):
    cassette = tmp_path / "t01.json"
    first = choose_model(MODEL, record=cassette)
    run_agent(first.client, atlas_session("T01"), model=first.model, source=first.source)
    first.save_recording()
    held = Cassette.load(cassette).entries
    second = choose_model(MODEL, record=cassette)
    assert f"adding to its {len(held)} recorded call(s)" in second.note
    run_agent(second.client, atlas_session("T04"), model=second.model, source=second.source)
    second.save_recording()
    after = Cassette.load(cassette).entries
    assert after[:len(held)] == held and len(after) == len(server.messages) > len(held)
    os.chmod(cassette, 0o444)
    with pytest.raises(ValueError, match="is read-only"):
        choose_model(MODEL, record=cassette)


def test_a_cassette_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    cassette = tmp_path / "class.json"
    Cassette(model=MODEL, recorded_on="2026-01-02", entries=[]).save(cassette)
    kept = cassette.read_bytes()

    def full(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    entry = {"fingerprint": "f", "request": {}, "response": {}}
    grown = Cassette(model=MODEL, recorded_on="2026-01-02", entries=[entry])
    with pytest.raises(OSError):
        grown.save(cassette)
    assert cassette.read_bytes() == kept and [p.name for p in tmp_path.iterdir()] == ["class.json"]
    assert json.loads(kept)["entries"] == []

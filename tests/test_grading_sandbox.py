"""Issue 30: hostile notebooks graded in the bubblewrap sandbox change nothing outside their own folder.

One class of chapter 02 notebooks, each the blank exercise plus one hostile cell: a write into the teacher's
folders, a delete of the teacher's file, a detached child, a Unix socket (a file one and an abstract one). Each
effect is looked for from outside, on the real filesystem, process table and sockets. Skipped where bubblewrap
cannot run, except in CI (ATLAS_REQUIRE_SANDBOX=1), which installs it.
"""
from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from pathlib import Path

import nbformat
import pytest

from atlas_kit.course.grading import grade_class
from atlas_kit.course.grading.sandbox import bwrap_works
from grading_class import ROOT, chapter_files

if not bwrap_works():
    if os.environ.get("ATLAS_REQUIRE_SANDBOX") == "1":
        raise RuntimeError("ATLAS_REQUIRE_SANDBOX=1 but bubblewrap cannot run here: apt install bubblewrap")
    pytest.skip("bubblewrap cannot run here (apt install bubblewrap)", allow_module_level=True)


def _listen(path: Path | str) -> tuple[socket.socket, list[bytes]]:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen()
    server.settimeout(0.2)
    got: list[bytes] = []

    def serve() -> None:
        while server.fileno() != -1:
            try:
                conn, _ = server.accept()
            except (TimeoutError, OSError):
                continue
            got.append(conn.recv(100) or b"connected")
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    return server, got


def _hostile(tmp: Path, name: str, code: str) -> None:
    nb = nbformat.read(chapter_files("02")[1], as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import os, socket, subprocess\ntry:\n" +
                                              "".join(f"    {line}\n" for line in code.splitlines()) +
                                              "except Exception as err:\n    print(type(err).__name__, err)\n"))
    nbformat.write(nb, tmp / "in" / f"{name}_02_four_branches.ipynb")


def test_hostile_notebooks_in_the_sandbox_leave_the_teacher_s_files_processes_and_sockets_alone(tmp_path,
                                                                                                 monkeypatch):
    (tmp_path / "in").mkdir()
    teacher = tmp_path / "teacher"
    teacher.mkdir()
    keep = teacher / "keep.txt"
    keep.write_text("the teacher's file")
    out = tmp_path / "out"
    marker = f"atlas-detached-{uuid.uuid4().hex}"
    abstract = f"\0atlas-test-{uuid.uuid4().hex}"
    agent, agent_got = _listen(tmp_path / "agent.sock")  # an ssh-agent-like socket file under /tmp
    hidden, hidden_got = _listen(abstract)
    _hostile(tmp_path, "writer", f"open({str(teacher / 'written.txt')!r}, 'w').write('x')\n"
                                 f"open({str(tmp_path / 'in' / 'written.txt')!r}, 'w').write('x')\n"
                                 f"os.makedirs({str(out)!r}, exist_ok=True)\n"
                                 f"open({str(out / 'grades.csv')!r}, 'w').write('forged')")
    _hostile(tmp_path, "deleter", f"os.remove({str(keep)!r})")
    _hostile(tmp_path, "detacher", f"subprocess.Popen(['sh', '-c', 'sleep 60; : {marker}'], start_new_session=True)")
    _hostile(tmp_path, "agent", f"s = socket.socket(socket.AF_UNIX)\ns.connect({str(tmp_path / 'agent.sock')!r})\n"
                                f"s.sendall(b'key please')")
    _hostile(tmp_path, "abstract", f"s = socket.socket(socket.AF_UNIX)\ns.connect({abstract!r})\ns.sendall(b'hello')")
    monkeypatch.chdir(teacher)  # the grader runs from the teacher's folder, as `atlas-kit grade` would
    try:
        book = grade_class([tmp_path / "in"], out=out, chapter="02", require_sandbox=True, jobs=2, cell_timeout=30)
        time.sleep(0.5)  # a connection under way would have arrived by now
    finally:
        agent.close()
        hidden.close()
    assert book.isolation == "sandbox" and len(book.grades) == 5
    assert {g.status for g in book.grades} <= {"ok", "errors"}, [(g.learner, g.status, g.notes) for g in book.grades]
    assert keep.read_text() == "the teacher's file"
    assert not (teacher / "written.txt").exists() and not (tmp_path / "in" / "written.txt").exists()
    assert (out / "grades.csv").read_text().startswith("learner,")  # the grader's own, not the forged one
    assert agent_got == [] and hidden_got == []
    alive = [p for p in Path("/proc").iterdir() if p.name.isdigit() and marker in _cmdline(p)]
    assert alive == [], "a child of a graded notebook outlived its kernel"


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_require_sandbox_refuses_before_grading_where_there_is_none(tmp_path, monkeypatch):
    import atlas_kit.course.grading.classroom as classroom

    monkeypatch.setattr(classroom, "bwrap_works", lambda: False)
    (tmp_path / "in").mkdir()
    nbformat.write(nbformat.read(chapter_files("02")[1], as_version=4), tmp_path / "in" / "02_four_branches.ipynb")
    with pytest.raises(ValueError, match="No sandbox: bubblewrap is not installed"):
        grade_class([tmp_path / "in"], out=tmp_path / "out", require_sandbox=True)
    assert not (tmp_path / "out").exists()
    assert ROOT.exists()

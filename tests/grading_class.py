"""Generate a synthetic class for the grader: the solutions, the blank exercises, and one notebook per bad case.

`make_class(folder, chapter="00")` writes the submissions and returns what each row must say; the tests
(tests/test_grading.py) and the benchmark (benchmarks/grading.py) grade them. Everything is built from
the chapter's own solution and exercise notebooks, so it follows the course as it changes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
XSS_NAME = "Ada <script>alert('x')</script>"  # a learner name the HTML report must escape
FORMULA_NAME = "=HYPERLINK(\"http://evil\")"  # one a spreadsheet must not run
WRONG = "not the answer"


@dataclass(frozen=True)
class Expected:
    """What a generated notebook's row must show."""

    learner: str
    status: str
    outcomes: tuple[str, ...]  # one per exercise, in the solution's order: right, blank, wrong or not_graded
    notes: tuple[str, ...] = ()  # substrings its notes must contain


def chapter_files(chapter: str) -> tuple[Path, Path]:
    solution = next((ROOT / "solutions").glob(f"{chapter}_*.ipynb"))
    return solution, ROOT / "exercises" / solution.name


def make_class(folder: Path, *, chapter: str = "00") -> list[Expected]:
    """Write one notebook per case into `folder`; return the expected rows (the class is graded with --chapter)."""
    solution_path, exercise_path = chapter_files(chapter)
    stem = solution_path.stem
    solution = nbformat.read(solution_path, as_version=4)
    blank = nbformat.read(exercise_path, as_version=4)
    keys = _keys(solution)
    n = len(keys)
    other = next(p for p in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")) if not p.name.startswith(chapter))
    right, blanks, none = ("right",) * n, ("blank",) * n, ("not_graded",) * n
    out: list[Expected] = []

    def write(name: str, nb: nbformat.NotebookNode, expected: Expected, *, sub: str = "") -> None:
        target = folder / sub / name if sub else folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)
        out.append(expected)

    # ada's solution also patches atlas_kit in its own kernel, which must change no grade: two cases in one
    # notebook, since each notebook costs two kernels.
    ada = _with(solution, len(solution.cells), _PATCH)
    ada.metadata["learner"] = XSS_NAME
    write(f"{stem}.ipynb", ada, Expected(XSS_NAME, "ok", right, ("atlas_kit.atlas.grade", "ToolError.body",
                                                                  "changed no grade")), sub="ada")
    write(f"bea_{stem}.ipynb", _copy(blank), Expected("bea", "ok", blanks))
    (folder / f"cy_{stem}.ipynb").write_text("{ this is not a notebook", encoding="utf-8")
    out.append(Expected("cy", "unreadable", none, ("not a notebook",)))
    write(f"dee_{other.stem}.ipynb", nbformat.read(other, as_version=4),
          Expected("dee", "wrong_chapter", none, (f"chapter {other.name[:2]}'s notebook",)))
    # The loops sleep rather than spin: the same timeout, interrupt and kill, without taking a core from the rest.
    # eve also shadows builtins, as beginners do; the grader's own cells must not notice.
    eve = _with(_with(solution, 1, "import time\nwhile True:\n    time.sleep(0.05)"), 1, _SHADOW)
    write(f"eve_{stem}.ipynb", eve,
          Expected("eve", "interrupted", right, ("was interrupted",)))
    stubborn = "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.05)"
    write(f"fay_{stem}.ipynb", _with(solution, 1, stubborn), Expected("fay", "killed", none, ("kernel was killed",)))
    write(f"gus_{stem}.ipynb", _raising(solution), Expected("gus", "errors", none, ("every code cell raised",)))
    write(f"hal_{stem}.ipynb", _deleted_and_renamed(solution, keys),
          Expected("hal", "errors", ("right",) * (n - 1) + ("not_graded",),
                   ("no check(...) call for " + ", ".join(keys),)))
    ivy = _with(_key_reader(solution), 1, _NETWORK)  # tries to read the key and to open the network
    ivy.metadata["learner"] = FORMULA_NAME
    write(f"ivy_{stem}.ipynb", ivy, Expected(FORMULA_NAME, "errors", right,
                                             ("ANTHROPIC_API_KEY", "1 of", "KeyError", "example.com:80", "blocked")))
    wrong = _with(solution, len(solution.cells), "\n".join(f"{name} = {WRONG!r}" for name in _answer_names(solution)))
    write(f"kit_{stem}.ipynb", _with(wrong, len(wrong.cells), _CHEAT),
          Expected("kit", "ok", ("wrong",) * n, ("redefines check",)))
    return out


_SHADOW = "list, str, dict, eval, open, sorted, vars, globals, isinstance = [1], 'x', {}, 0, 0, 0, 0, 0, 0"

_NETWORK = '''import socket
import urllib.request

failed = []
for attempt in (lambda: urllib.request.urlopen("http://example.com/", timeout=3),
                lambda: socket.create_connection(("example.com", 80), timeout=3)):
    try:
        attempt()
    except OSError as exc:
        failed.append(type(exc).__name__)
assert len(failed) == 2, f"the network was reachable: {failed}"'''

_CHEAT = '''import atlas_kit.course.checks
from atlas_kit.course.checks._registry import Feedback

check = lambda key, answer: Feedback(key, True, "Right.")
atlas_kit.course.checks.check = check
atlas_kit.course.checks.is_blank = lambda answer: False
atlas_kit.course.checks.EXERCISES.clear()
print(check("any", ...))'''

_PATCH = '''import atlas_kit.atlas
import atlas_kit.contract.errors

atlas_kit.atlas.grade = lambda run: None
atlas_kit.contract.errors.ToolError.body = lambda self: {}'''


def _keys(nb: nbformat.NotebookNode) -> list[str]:
    return [m.group(1) for c in nb.cells if c.cell_type == "code" for m in re.finditer(r'check\("([0-9.]+)"', c.source)]


def _answer_names(nb: nbformat.NotebookNode) -> list[str]:
    source = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    return list(dict.fromkeys(re.findall(r'check\("[0-9.]+",\s*(\w+)\)', source)))


def _copy(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    return nbformat.reads(nbformat.writes(nb), as_version=4)


def _with(nb: nbformat.NotebookNode, index: int, source: str) -> nbformat.NotebookNode:
    """A copy with a code cell inserted after the first `index` code cells (all of them if index is large)."""
    new = _copy(nb)
    code = [i for i, c in enumerate(new.cells) if c.cell_type == "code"]
    at = code[index - 1] + 1 if index <= len(code) else len(new.cells)
    new.cells.insert(at, nbformat.v4.new_code_cell(source))
    return new


def _raising(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    new = _copy(nb)
    for i, cell in enumerate(c for c in new.cells if c.cell_type == "code"):
        cell.source = f"raise RuntimeError('cell {i + 1} always fails')\n{cell.source}"
    return new


def _deleted_and_renamed(nb: nbformat.NotebookNode, keys: list[str]) -> nbformat.NotebookNode:
    """Every check call renamed, and the cell that sets the last exercise's answer deleted."""
    new = _copy(nb)
    last = re.search(rf'check\("{re.escape(keys[-1])}",\s*(\w+)\)', "\n".join(c.source for c in new.cells)).group(1)
    sets_it = re.compile(rf"(def\s+)?{last}\b")
    new.cells = [c for c in new.cells if not (c.cell_type == "code" and sets_it.match(c.source.lstrip()))]
    for cell in new.cells:
        if cell.cell_type == "code":
            cell.source = cell.source.replace("check(", "check_answer(")
    return new


def _key_reader(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Asks for a live model (a `parameters` cell and the chapter's setup call, or one added where the chapter has
    none) and reads the key; only the read may fail."""
    new = _copy(nb)
    sets_up = False
    for cell in new.cells:
        if cell.cell_type == "code" and "setup(model=" in cell.source:
            cell.source = re.sub(r"setup\(model=[^,)]*", "setup(model=model", cell.source)
            sets_up = True
    first = next(i for i, c in enumerate(new.cells) if c.cell_type == "code")
    params = nbformat.v4.new_code_cell('model = "claude-sonnet-5-5"', metadata={"tags": ["parameters"]})
    new.cells.insert(first, params)
    if not sets_up:
        new = _with(new, 1, "from atlas_kit.course.runner import setup\n\nchoice = setup(model=model, seed=0)")
    new = _with(new, 2, 'import os\nkey = os.environ["ANTHROPIC_API_KEY"]')
    return _with(new, 3, 'assert model == "atlas-offline-1" and choice.model == "atlas-offline-1", model\n'
                         'leaks = [name for name in os.environ if "KEY" in name or "TOKEN" in name]\n'
                         'assert not leaks, leaks')

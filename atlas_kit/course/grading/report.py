"""Write a graded class out: grades.csv (a row per notebook) and report.html (by exercise, then by learner).

Everything a learner wrote (names, file names, notes, feedback that echoes answers) is HTML-escaped,
and CSV cells that a spreadsheet would run as a formula are quoted. Described in README's "For teachers".
"""
from __future__ import annotations

import csv
import re
from collections import Counter
from dataclasses import dataclass
from html import escape
from pathlib import Path

from .records import STATUS_ORDER, Gradebook

_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_MARK = {"right": "✓", "wrong": "✗", "blank": "…", "not_graded": "–"}


@dataclass(frozen=True)
class ExerciseSummary:
    """One exercise across the class: how many got it right, and what the others were told most often."""

    key: str
    title: str
    rows: int  # notebooks graded against this exercise's chapter
    passed: int
    blank: int
    not_graded: int
    common: str  # the commonest wording of the commonest form of check message among wrong answers ("" if none)
    common_count: int  # how many wrong answers got a message of that form


def summarize(book: Gradebook) -> list[ExerciseSummary]:
    out = []
    for spec in book.exercises():
        # A file that is not a notebook is no learner's attempt at an exercise: it is counted apart (in the head).
        results = [g.results[spec.key] for g in book.grades if spec.key in g.results and g.status != "unreadable"]
        counts = Counter(r.outcome for r in results)
        # Checks quote the learner's own values, so group messages by their form and show the commonest wording.
        forms = Counter(_QUOTED.sub("'…'", r.message) for r in results if r.outcome == "wrong")
        form, n = min(forms.items(), key=lambda item: (-item[1], item[0])) if forms else ("", 0)
        wording = Counter(r.message for r in results if r.outcome == "wrong" and _QUOTED.sub("'…'", r.message) == form)
        common = min(wording.items(), key=lambda item: (-item[1], item[0]))[0] if wording else ""
        out.append(ExerciseSummary(spec.key, spec.title, len(results), counts["right"], counts["blank"],
                                   counts["not_graded"], common, n))
    return out


def write_csv(book: Gradebook, path: Path) -> None:
    keys = [spec.key for spec in book.exercises()]
    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["learner", "file", "chapter", "status", *keys, "total", "out_of", "notes"])
        for g in book.grades:
            marks = [g.results[k].points if k in g.results else "" for k in keys]
            out.writerow([_cell(g.learner), _cell(g.file), g.chapter or "", g.status, *marks, g.total, g.out_of,
                          _cell(" | ".join(g.notes))])


def write_html(book: Gradebook, path: Path) -> None:
    path.write_text(render_html(book), encoding="utf-8")


def render_html(book: Gradebook) -> str:
    """The gradebook as one HTML page: how the notebooks ran, then by exercise, by learner, and each learner's own."""
    parts = _html_head(book) + _html_exercises(book) + _html_learners(book)
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _html_head(book: Gradebook) -> list[str]:
    e = escape
    chapters = ", ".join(f"{c} ({p.stem})" for c, p in sorted(book.plans.items())) or "none"
    statuses = Counter(g.status for g in book.grades)
    network = {
        "sandbox": "blocked, Unix sockets included: each kernel ran in a bubblewrap sandbox, in a network and PID "
                   "namespace of its own, with the filesystem read-only but for its own folder and its own /tmp, and "
                   "your home, this folder, the submissions' and the output folder hidden; no child outlived its kernel",
        "network namespace": "blocked for TCP and abstract sockets: each kernel ran in a network namespace of its own; "
                             "NOT enforced (no bubblewrap): it could read and write your files, reach socket files, see "
                             "your processes in /proc and leave a child running",
    }.get(book.isolation, "not fully blocked: proxy variables and ANTHROPIC_BASE_URL pointed at a closed port, and an "
                          "in-kernel guard refused Python socket connections; subprocesses and C code could still "
                          "reach the network. NOT enforced (no bubblewrap, no namespaces): it could read and write your "
                          "files, read your processes' environments and leave a child running")
    return [
        "<!doctype html><html><head><meta charset='utf-8'><title>Grades</title><style>"
        "body{font-family:sans-serif;max-width:70em;margin:2em auto}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top;overflow-wrap:anywhere}"
        ".right{color:#2e7d32}.wrong,.blank,.not_graded{color:#c62828}</style></head><body>",
        f"<h1>Grades: chapter {e(chapters)}</h1>",
        f"<p>{len(book.grades)} files, graded in {book.seconds:.0f} s"
        + (f" ({statuses['unreadable']} not a notebook, counted in no exercise's total)"
           if statuses["unreadable"] else "")
        + ". Status: "
        + e(", ".join(f"{s} {statuses[s]}" for s in STATUS_ORDER if statuses[s])) + ".</p>",
        "<p>How they ran: each notebook in a kernel of its own, with the offline stand-in (atlas-offline-1, a "
        "rule-based program, not an LLM; its results are simulated) and no API key in the environment; "
        f"{book.timeout:g} s per notebook, {book.cell_timeout:g} s per cell. Network: {e(network)}. "
        "Each exercise was checked by the grader's own copy of the checks, on the answer the solution notebook "
        "checks, whatever the notebook did to <code>check</code>.</p>",
    ]


def _html_exercises(book: Gradebook) -> list[str]:
    e = escape
    parts = ["<h2>By exercise</h2><table><tr><th>exercise</th><th>passed</th><th>not answered</th><th>not graded</th>"
             "<th>most common feedback to those who did not pass</th></tr>"]
    for s in summarize(book):
        common = (f"{e(s.common)} <i>({s.common_count} learner{'s' if s.common_count > 1 else ''} got feedback of this "
                  "form)</i>" if s.common else "—")
        parts.append(f"<tr><td><b>{e(s.key)}</b> {e(s.title)}</td><td>{s.passed} of {s.rows}</td><td>{s.blank}</td>"
                     f"<td>{s.not_graded}</td><td>{common}</td></tr>")
    return parts


def _html_learners(book: Gradebook) -> list[str]:
    e = escape
    parts = ["</table><h2>By learner</h2><table><tr><th>learner</th><th>file</th><th>status</th><th>score</th>"
             "<th>notes</th></tr>"]
    for i, g in enumerate(book.grades):
        parts.append(f"<tr><td><a href='#learner-{i}'>{e(g.learner)}</a></td><td>{e(g.file)}</td><td>{e(g.status)}</td>"
                     f"<td>{g.total} / {g.out_of}</td><td>{'<br>'.join(e(n) for n in g.notes)}</td></tr>")
    parts.append("</table>")
    for i, g in enumerate(book.grades):
        parts.append(f"<h3 id='learner-{i}'>{e(g.learner)} · {g.total} / {g.out_of} · {e(g.status)}</h3>"
                     f"<p>{e(g.file)}{', chapter ' + e(g.chapter) if g.chapter else ''}</p>")
        if g.notes:
            parts.append("<ul>" + "".join(f"<li>{e(n)}</li>" for n in g.notes) + "</ul>")
        if g.results:
            parts.append("<table>" + "".join(
                f"<tr class='{r.outcome}'><td>{_MARK[r.outcome]} {e(k)}</td><td>{e(r.message)}</td></tr>"
                for k, r in g.results.items()) + "</table>")
    return parts


def _cell(text: str) -> str:
    # A spreadsheet runs a cell that starts with one of these as a formula; a learner's name must not.
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text

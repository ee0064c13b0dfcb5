"""How long a chapter takes a careful learner who reads every output: the figure the README and each chapter's
header give, computed here so the two cannot drift (tests/test_rendering.py compares them).

Reading: prose at 140 words a minute, code at 100 (read before running it), outputs (printed text, tables) at 200,
a chart one minute, and a third of a minute to run each code cell and look at what it did; the exercises are extra.
Why 140 for prose: Brysbaert (2019; a meta-analysis of 190 studies, 18,573 readers) puts silent reading of English
non-fiction at 238 words a minute on average, most adults between 175 and 300, when reading to understand. Reading
to learn is slower: Carver's studies put it near 200, and reading to remember near 138. A careful learner here does
more than understand: each identifier, figure and claim is held against the code or output beside it, and an
identifier counts as one word. So prose is read near Carver's slower rate; the earlier 180 was a rate for easy text.
Rounded to the nearest 5 minutes. `python scripts/minutes.py` prints every chapter's; `--write` puts them in the
README's course map and in each chapter's opening cell (the line HEADER writes), as CI's test expects.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
_WORD = re.compile(r"[A-Za-z0-9$%][\w$%.,'’-]*")
_TAG = re.compile(r"<[^>]+>")
# Words a minute for prose, for code read before running it, and for outputs (figures to check, not sentences);
# minutes for a chart, and for running one cell and looking at what it did.
PROSE, CODE, OUTPUT, CHART, CELL = 140, 100, 200, 1.0, 0.3


def words(text: str) -> int:
    return len(_WORD.findall(_TAG.sub(" ", text)))


def chapter_minutes(path: Path) -> int:
    """The careful reader's minutes for one stored notebook (outputs included), to the nearest 5."""
    return max(5, int(5 * round(exact_minutes(path) / 5)))


def exact_minutes(path: Path) -> float:
    """The careful reader's minutes for one stored notebook, unrounded: what a course's total adds up."""
    nb = json.loads(path.read_text())
    minutes = 0.0
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            minutes += words(source) / PROSE
            continue
        minutes += CELL + words(source) / CODE
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "image/png" in data:
                minutes += CHART
            text = "".join(out.get("text", "")) or "".join(data.get("text/html", "")) or "".join(data.get("text/plain", ""))
            minutes += words(text) / OUTPUT
    return minutes


HEADER = "*About {minutes} minutes for a careful reader who reads every output; the exercises are extra.*"
_HEADER = re.compile(r"\*About (\d+) minutes for a careful reader who reads every output; the exercises are extra\.\*")
_ROW = re.compile(r"^(\| \[(\d\d) [^|]*\]\(chapters/[^)]*\) \|[^|]*\| )(\d+)( \|)$", re.M)


def header_minutes(path: Path) -> int | None:
    """The minutes a chapter's opening cell states, or None."""
    found = _HEADER.search("".join(json.loads(path.read_text())["cells"][0]["source"]))
    return int(found.group(1)) if found else None


def readme_minutes(readme: str) -> dict[str, int]:
    """{"00": 20, ...}: the minutes column of the README's course map."""
    return {m.group(2): int(m.group(3)) for m in _ROW.finditer(readme)}


def _write(path: Path, minutes: int) -> None:
    nb = nbformat.read(path, as_version=4)
    cell = nb.cells[0]
    text = cell.source
    line = HEADER.format(minutes=minutes)
    if _HEADER.search(text):
        text = _HEADER.sub(line, text)
    else:
        title, _, rest = text.partition("\n")
        text = f"{title}\n\n{line}\n{rest}" if rest.startswith("\n") else f"{title}\n\n{line}\n\n{rest}"
    if text != cell.source:
        cell.source = text
        nbformat.write(nb, path)


def main() -> int:
    write = "--write" in sys.argv[1:]
    found = {p.name[:2]: (p, chapter_minutes(p)) for p in sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))}
    for number, (path, minutes) in found.items():
        print(f"{path.stem}: {minutes}")
        if write:
            _write(path, minutes)
    if write:
        readme = ROOT / "README.md"
        text = _ROW.sub(lambda m: f"{m.group(1)}{found[m.group(2)][1]}{m.group(4)}" if m.group(2) in found
                        else m.group(0), readme.read_text())
        readme.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

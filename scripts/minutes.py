"""How long a chapter takes a careful learner who reads every output: the figure the README and each chapter's
header give, computed here so the two cannot drift (tests/test_rendering.py compares them).

Reading: prose at 180 words a minute, code at 100 (read before running it), outputs (printed text, tables) at 200,
a chart one minute, and a third of a minute to run each code cell and look at what it did; the exercises are extra.
Rounded to the nearest 5 minutes. `python scripts/minutes.py` prints every chapter's.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_WORD = re.compile(r"[A-Za-z0-9$%][\w$%.,'’-]*")
_TAG = re.compile(r"<[^>]+>")
# Words a minute for prose, for code read before running it, and for outputs (figures to check, not sentences);
# minutes for a chart, and for running one cell and looking at what it did.
PROSE, CODE, OUTPUT, CHART, CELL = 180, 100, 200, 1.0, 0.3


def _words(text: str) -> int:
    return len(_WORD.findall(_TAG.sub(" ", text)))


def chapter_minutes(path: Path) -> int:
    """The careful reader's minutes for one stored notebook (outputs included), to the nearest 5."""
    nb = json.loads(path.read_text())
    minutes = 0.0
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            minutes += _words(source) / PROSE
            continue
        minutes += CELL + _words(source) / CODE
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "image/png" in data:
                minutes += CHART
            text = "".join(out.get("text", "")) or "".join(data.get("text/html", "")) or "".join(data.get("text/plain", ""))
            minutes += _words(text) / OUTPUT
    return max(5, int(5 * round(minutes / 5)))


def main() -> int:
    for path in sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb")):
        print(f"{path.stem}: {chapter_minutes(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

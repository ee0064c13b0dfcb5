"""How each chapter's prose reads: its sentences, their mean length in words, the share over 40 words, the words
of its Markdown cells, and the minutes a careful reader takes (prose alone, and the whole chapter as
scripts/minutes.py counts it). Issue 50 bounds a chapter's mean sentence at 22 words and its long ones at 5%.

A sentence is a run of text that ends in . ! or ? before a capital, a digit or an opening mark, or a list item or a
paragraph (in a block quote too) that ends without one. Headings, tables, fenced code and HTML comments hold no
sentences (their words are still read); inline code and abbreviations (e.g., i.e., vs.) never end one. Words are
counted as minutes.py counts them. `python scripts/prose.py [PATH ...]` prints the table; `--write` puts it in the
README between its markers.
"""
from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import minutes  # scripts/ is on the path when this runs as a script

ROOT = minutes.ROOT
MEAN_BOUND, LONG_WORDS, LONG_SHARE = 22.0, 40, 0.05
"""Issue 50: a chapter's mean sentence at most 22 words, at most 5% of its sentences over 40 words."""

_FENCE = re.compile(r"^```.*?^```[^\n]*$", re.M | re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_CODE = re.compile(r"`[^`]*`")
_ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|vs|etc|cf|al|approx|no)\.", re.I)
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")
_QUOTE = re.compile(r"^\s*>\s?")
# The end of a sentence: a stop, any closing marks, white space, then what a new sentence starts with.
_END = re.compile(r"[.!?][)\]*_\"'’”]*\s+(?=[A-Z0-9(\[*_\"'‘“])")


@dataclass(frozen=True)
class Prose:
    """One chapter's figures: its sentences' lengths in words, and the words of its Markdown cells."""

    name: str
    lengths: tuple[int, ...]
    words: int
    minutes: int
    exact: float

    @property
    def sentences(self) -> int:
        return len(self.lengths)

    @property
    def mean(self) -> float:
        return sum(self.lengths) / len(self.lengths) if self.lengths else 0.0

    @property
    def long(self) -> int:
        return sum(n > LONG_WORDS for n in self.lengths)

    @property
    def long_share(self) -> float:
        return self.long / len(self.lengths) if self.lengths else 0.0

    @property
    def prose_minutes(self) -> float:
        return self.words / minutes.PROSE

    @property
    def within_bounds(self) -> bool:
        return self.mean <= MEAN_BOUND and self.long_share <= LONG_SHARE


def _units(markdown: str) -> list[str]:
    """The paragraphs and list items of one Markdown cell, each joined into one line; headings and tables dropped."""
    text = _LINK.sub(r"\1", _IMAGE.sub(" ", _COMMENT.sub(" ", _FENCE.sub(" ", markdown))))
    units: list[list[str]] = []
    for line in text.splitlines():
        line = _QUOTE.sub("", line)
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "|")) or set(stripped) <= set("-*_ "):
            units.append([])
        elif _ITEM.match(line):
            units.append([_ITEM.sub("", line, count=1)])
        elif units and units[-1]:
            units[-1].append(stripped)
        else:
            units.append([stripped])
    return [" ".join(u) for u in units if u]


def _mask(unit: str) -> str:
    """The unit with inline code and abbreviations blanked out (same length), so no stop inside them ends a sentence."""
    def blank(m: re.Match[str]) -> str:
        return "X" * len(m.group(0))
    return _ABBREVIATIONS.sub(blank, _CODE.sub(blank, unit))


def sentences(markdown: str) -> list[str]:
    """The sentences of one Markdown cell, in order."""
    out: list[str] = []
    for unit in _units(markdown):
        start = 0
        for m in _END.finditer(_mask(unit)):
            out.append(unit[start:m.end()].strip())
            start = m.end()
        if unit[start:].strip():
            out.append(unit[start:].strip())
    return [s for s in out if minutes.words(s)]


def measure(path: Path) -> Prose:
    """The prose figures of one stored notebook."""
    cells = [("".join(c["source"])) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown"]
    lengths = tuple(minutes.words(s) for cell in cells for s in sentences(cell))
    return Prose(path.stem, lengths, sum(minutes.words(cell) for cell in cells), minutes.chapter_minutes(path),
                 minutes.exact_minutes(path))


def total(found: list[Prose]) -> Prose:
    """Every chapter's figures pooled; the minutes are the unrounded chapters' sum, rounded once, since rounding each
    chapter to 5 first can hide up to 2.5 minutes a chapter."""
    exact = sum(p.exact for p in found)
    return Prose("all chapters", tuple(n for p in found for n in p.lengths), sum(p.words for p in found), round(exact),
                 exact)


COLUMNS = ("chapter", "sentences", "mean words", "over 40", "words", "prose min", "chapter min")


def rows(found: list[Prose]) -> list[tuple[str, ...]]:
    """One row per chapter and a total: the table the script prints and the README holds."""
    return [(p.name[:2] if p.name[:2].isdigit() else p.name, str(p.sentences), f"{p.mean:.1f}",
             f"{p.long_share:.1%}", f"{p.words:,}", f"{p.prose_minutes:.0f}", str(p.minutes))
            for p in [*found, total(found)]]


def markdown_table(found: list[Prose]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows(found)])


START, END = "<!-- prose-table -->", "<!-- /prose-table -->"
_BLOCK = re.compile(re.escape(START) + r"\n(.*?)" + re.escape(END), re.S)


def readme_table(readme: str) -> str | None:
    """The table between the README's markers, or None."""
    found = _BLOCK.search(readme)
    return found.group(1).strip("\n") if found else None


def chapters() -> list[Path]:
    return sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv if not a.startswith("--")] or chapters()
    found = [measure(p) for p in paths]
    widths = [max(len(c), *(len(r[i]) for r in rows(found))) for i, c in enumerate(COLUMNS)]
    print("  ".join(c.rjust(w) for c, w in zip(COLUMNS, widths)))
    for r in rows(found):
        print("  ".join(v.rjust(w) for v, w in zip(r, widths)))
    outside = [p.name for p in found if not p.within_bounds]
    print(f"\nBounds: mean sentence <= {MEAN_BOUND:.0f} words, at most {LONG_SHARE:.0%} over {LONG_WORDS}; "
          f"outside them: {', '.join(outside) or 'none'}. Prose read at {minutes.PROSE} words a minute.")
    if "--write" in argv:
        readme = ROOT / "README.md"
        text = readme.read_text()
        if not _BLOCK.search(text):
            print(f"README.md has no {START} ... {END} block to fill", file=sys.stderr)
            return 1
        readme.write_text(_BLOCK.sub(lambda _: f"{START}\n{markdown_table(found)}\n{END}", text))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

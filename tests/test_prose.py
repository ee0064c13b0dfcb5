"""scripts/prose.py: how it cuts Markdown into sentences, that the README holds the table it prints, and that the
chapters issue 50 rewrote keep its bounds (mean sentence at most 22 words, at most 5% over 40)."""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import prose  # noqa: E402  (scripts/ is not a package)

# Every chapter keeps the bounds since issue 50 (01, 11 and 16 were rebuilt on real data, the others rewritten).
BOUNDED = ["00", "01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13", "14", "15", "16"]


def test_a_stop_before_a_capital_ends_a_sentence_and_other_stops_do_not() -> None:
    text = ("The stand-in follows `next.` It stops, e.g. on a refusal, vs. a retry. See arXiv 2606.05037 for more. "
            "Yao et al. 2024 read 200 episodes! Did it help? `setup` prints the model.")
    assert prose.sentences(text) == [
        "The stand-in follows `next.` It stops, e.g. on a refusal, vs. a retry.",
        "See arXiv 2606.05037 for more.",
        "Yao et al. 2024 read 200 episodes!",
        "Did it help?",
        "`setup` prints the model.",
    ]


def test_list_items_and_paragraphs_are_sentences_and_headings_tables_and_code_are_not() -> None:
    text = ("# 02 · A title\n\nA paragraph that\nwraps over two lines\n\n- a bullet without a stop\n- another, which\n"
            "  wraps. And has two.\n\n| a | b |\n|---|---|\n| c. D | e |\n\n```python\nx = 1. Y = 2\n```\n"
            "<!-- a comment. Here -->\n[A link](https://example.com/a.b) ends it.\n\n"
            "> **Evidence**\n>\n> - a quoted item.\n> - and another")
    assert prose.sentences(text) == ["A paragraph that wraps over two lines", "a bullet without a stop",
                                     "another, which wraps.", "And has two.", "A link ends it.", "**Evidence**",
                                     "a quoted item.", "and another"]


def test_a_chapter_counts_its_long_sentences_and_its_words(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    long = "Word " + " ".join(["word"] * 40) + "."
    nb.cells = [nbformat.v4.new_markdown_cell(f"# 99 · A title\n\nShort one here. {long}"),
                nbformat.v4.new_code_cell("x = 'Not. Prose.'")]
    path = tmp_path / "99_a.ipynb"
    nbformat.write(nb, path)
    found = prose.measure(path)
    assert found.lengths == (3, 41) and found.long == 1 and found.words == 3 + 3 + 41
    assert found.mean == 22.0 and found.long_share == 0.5 and not found.within_bounds


def test_the_course_total_is_the_unrounded_chapters_sum(tmp_path: Path) -> None:
    found = [prose.Prose("a", (1,), 1, 5, 3.4), prose.Prose("b", (1,), 1, 5, 3.4)]  # each rounds up to 5
    assert prose.total(found).minutes == 7  # 6.8 in all, not 10


def test_the_readme_holds_the_table_the_script_prints() -> None:
    table = prose.readme_table((ROOT / "README.md").read_text())
    assert table is not None, f"the README has no {prose.START} block: run `python scripts/prose.py --write`"
    assert table == prose.markdown_table([prose.measure(p) for p in prose.chapters()]), (
        "the README's prose table differs from the chapters: run `python scripts/prose.py --write`")


@pytest.mark.parametrize("number", BOUNDED)
def test_every_chapter_keeps_its_sentences_short(number: str) -> None:
    path = next(p for p in prose.chapters() if p.name.startswith(number))
    found = prose.measure(path)
    assert found.within_bounds, (
        f"{path.stem}: mean sentence {found.mean:.1f} words (at most {prose.MEAN_BOUND:.0f}), {found.long_share:.1%} "
        f"over {prose.LONG_WORDS} words (at most {prose.LONG_SHARE:.0%}): `python scripts/prose.py {path}` prints them")

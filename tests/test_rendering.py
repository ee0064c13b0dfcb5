"""What a learner sees in JupyterLab: no dollar amount typeset as math, complete notebook metadata, tables
that keep every word and digit, charts whose legends and notes sit off the data, a playground that reads
before a run, quiet kernels, and a closing line and a README papermill command that work as written.
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from atlas_kit.course import runner as course
from atlas_kit.face.tables import Table, shorten

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(p for folder in ("chapters", "solutions", "exercises") for p in (ROOT / folder).glob("*.ipynb"))
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
sys.path.insert(0, str(ROOT / "scripts"))
import run_notebooks  # noqa: E402  (scripts/ is not a package)

# --- dollar amounts: JupyterLab typesets a pair of $ as math, in Markdown and in HTML outputs alike -------------

FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n.*?^\1[`~]*[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
AMOUNT = re.compile(r"(?<!\\)\$(?=\s?\d)")  # an unescaped $ right before a figure: $85.00, $ 5


def markdown_dollars(text: str) -> list[str]:
    """Each unescaped `$` amount in Markdown prose (code spans and fenced blocks are left alone)."""
    prose = CODE_SPAN.sub("", FENCE.sub("", text))
    return [prose[max(0, m.start() - 30): m.start() + 12].replace("\n", " ") for m in AMOUNT.finditer(prose)]


def html_dollars(html: str) -> list[str]:
    """Text runs of an HTML output holding two or more `$`: MathJax pairs them within one run of text
    (any tag but <br> ends a run), so `<span>$</span>` or a tag between amounts keeps them apart."""
    html = re.sub(r"<(pre|code|script|style)\b.*?</\1>", "", html, flags=re.DOTALL | re.IGNORECASE)
    runs = re.split(r"<(?!br\b|/br\b|wbr\b)[^>]*>", html, flags=re.IGNORECASE)
    return [run[:80] for run in runs if len(re.findall(r"(?<!\\)\$", run)) >= 2]


@pytest.mark.parametrize("text,found", [
    ("The invoice was $75.00.", 1),
    ("guesses $85.00; the invoice was $75.00", 2),
    ("guesses \\$85.00; the invoice was \\$75.00", 0),
    ("a refund over \\$500.00 needs a person", 0),
    ("`print(f'${x:.2f}')` and `$5`", 0),
    ("```python\ncost = '$5.00'\n```\nthen \\$5", 0),
    ("$$\\text{recovery} = P(a \\mid b)$$ with $\\hat p = k/n$ and $z \\approx 1.96$", 0),
    ("costs $ 5 a month", 1),
])
def test_the_markdown_scanner_finds_amounts_and_only_amounts(text, found):
    assert len(markdown_dollars(text)) == found, markdown_dollars(text)


def test_the_html_scanner_finds_a_pair_in_one_run_of_text_only():
    assert html_dollars("<td>INV-1 ($310.50) and INV-2 ($89.99)</td>")
    assert not html_dollars("<td>$310.50</td><td>$89.99</td>")
    assert not html_dollars("<pre>$1 and $2</pre>")
    assert not html_dollars(Table([["INV-1 ($310.50) and INV-2 ($89.99)"]], ["invoices"])._repr_html_())


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[f"{p.parent.name}/{p.stem}" for p in NOTEBOOKS])
def test_no_dollar_amount_renders_as_math(path):
    nb = nbformat.read(path, as_version=4)
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            found += [f"cell {i}: ...{hit}..." for hit in markdown_dollars(cell.source)]
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            found += [f"cell {i} output: ...{hit}..." for hit in markdown_dollars("".join(data.get("text/markdown", "")))]
            found += [f"cell {i} html output: {hit!r}" for hit in html_dollars("".join(data.get("text/html", "")))]
    assert not found, "escape $ amounts as \\$ (Markdown) or keep them apart (HTML):\n" + "\n".join(found)


# --- metadata: what JupyterLab writes into a notebook it opens -------------------------------------------------

@pytest.mark.parametrize("path", NOTEBOOKS, ids=[f"{p.parent.name}/{p.stem}" for p in NOTEBOOKS])
def test_notebook_metadata_is_what_jupyterlab_would_write(path):
    """JupyterLab sets kernelspec and language_info from the kernel on opening and marks the notebook unsaved
    when they differ (a deep comparison); nbformat 4.5 is its current minor version (cell ids)."""
    nb = nbformat.read(path, as_version=4)
    want = run_notebooks.language_info()
    got = nb.metadata.get("language_info", {})
    assert nb.metadata.get("kernelspec") == run_notebooks.KERNEL
    assert {k: v for k, v in got.items() if k != "version"} == {k: v for k, v in want.items() if k != "version"}, got
    assert re.fullmatch(r"3\.\d+\.\d+", str(got.get("version"))), got
    assert nb.nbformat == 4 and nb.nbformat_minor >= 5


def test_clean_stores_complete_metadata_and_drops_widget_references():
    nb = nbformat.v4.new_notebook(metadata={"language_info": {"name": "python"}, "widgets": {"state": {}}})
    cell = nbformat.v4.new_code_cell("pg")
    cell.outputs = [nbformat.v4.new_output("display_data", data={
        "application/vnd.jupyter.widget-view+json": {"model_id": "abc", "version_major": 2, "version_minor": 0},
        "text/html": "<b>static</b>", "text/plain": "settings"})]
    nb.cells = [cell]
    cleaned = run_notebooks.clean(nb)
    assert set(cleaned.metadata) == {"kernelspec", "language_info"}
    assert cleaned.metadata.language_info == run_notebooks.language_info()
    assert set(cleaned.cells[0].outputs[0]["data"]) == {"text/html", "text/plain"}
    assert not run_notebooks.problems(Path("x.ipynb"), cleaned)
    nb.metadata = {"language_info": {"name": "python"}}
    assert "language_info" in " ".join(run_notebooks.problems(Path("x.ipynb"), nb))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[f"{p.parent.name}/{p.stem}" for p in NOTEBOOKS])
def test_no_stored_widget_reference_without_state(path):
    nb = nbformat.read(path, as_version=4)
    refs = [i for i, c in enumerate(nb.cells) for o in c.get("outputs", [])
            if run_notebooks.WIDGET_VIEW in o.get("data", {})]
    assert not refs or "widgets" in nb.metadata, f"cells {refs}: a widget view with no stored state shows no widget"


# --- tables ----------------------------------------------------------------------------------------------------

def test_a_table_keeps_every_digit_of_a_float():
    text = repr(Table([[1234.5, 999.99, 16.53, 0.0077, 1.0, 4.5e-07]], list("abcdef")))
    for shown in ("1,234.5", "999.99", "16.53", "0.0077", "4.5e-07"):
        assert shown in text, text
    assert text.splitlines()[-1].split()[4] == "1"


@pytest.mark.parametrize("text,width", [
    ("All done: I've taken care of it (look up account ACC-4472), and the amount involved is $531.23", 90),
    ('{"error": "upstream_unavailable", "message": "The list_invoices service is not responding"}', 64),
    ("HTTP/1.1 503 Service Unavailable Content-Type: text/html <html><head><title>503", 40),
    ("expected one escalation Escalation(account_id='ACC-4471', queue='billing_refunds')", 60),
])
def test_shorten_cuts_only_between_words(text, width):
    short = shorten(text, width)
    assert short.endswith(" …") and len(short) <= width
    kept, words = short.removesuffix(" …").split(), text.split()
    assert kept[:-1] == words[:len(kept) - 1], short  # whole words, in order: none cut
    assert kept[-1] == words[len(kept) - 1].rstrip(",;:"), short  # the last one too, less a trailing comma


def test_shorten_keeps_a_single_long_word_whole_and_short_text_as_it_is():
    assert shorten("x" * 80, 10) == "x" * 80
    assert shorten("a refund of $45.00", 60) == "a refund of $45.00"


def test_a_table_clips_at_word_boundaries_per_column_and_refuses_an_unknown_column():
    t = Table([["T11", "An error occurred, please try again. <html><head><title>503 Service"]], ["ticket", "read"],
              clip={"read": 40})
    assert t.rows[0] == ["T11", "An error occurred, please try again. …"]
    with pytest.raises(ValueError, match="not a column"):
        Table([["a"]], ["x"], clip={"y": 5})


TEXT_CUT = re.compile(r"\[\s*:\s*\d{2,}\s*\]")  # text[:90]: a width, not a list slice like [:2]


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.parent.name != "exercises"],
                         ids=[f"{p.parent.name}/{p.stem}" for p in NOTEBOOKS if p.parent.name != "exercises"])
def test_no_notebook_cuts_text_at_a_character_count(path):
    """text[:90] cuts inside a word or an amount ($531.23 becomes $53); tables.shorten and Table(clip=) cut between words."""
    nb = nbformat.read(path, as_version=4)
    cuts = [f"cell {i}: {m.group(0)}" for i, c in enumerate(nb.cells) if c.cell_type == "code" for m in TEXT_CUT.finditer(c.source)]
    assert not cuts, "use atlas_kit.face.tables.shorten(text, width) or Table(..., clip=...) instead of " + ", ".join(cuts)


def test_multi_line_cells_stay_in_their_column():
    lines = repr(Table([["a", "one\ntwo", "z"]], ["x", "y", "w"])).splitlines()
    assert lines[2].index("one") == lines[3].index("two") and lines[2].endswith("z")


# --- charts: legends and notes never cover data ----------------------------------------------------------------

def _records():
    from atlas_kit.experiments.sweep import run_experiment

    return run_experiment(name="r", styles=["raw", "generic", "contract"], faults=(True,), tickets=["T05", "T11", "T21"],
                          trials=2, progress=False)


def _data_boxes(ax, renderer):
    from matplotlib.patches import Rectangle

    boxes = [p.get_window_extent(renderer) for a in [ax, *ax.figure.axes] for p in a.patches
             if isinstance(p, Rectangle) and p.get_height() > 0]
    boxes += [t.get_window_extent(renderer) for t in ax.texts]
    boxes += [line.get_window_extent(renderer) for line in ax.lines if len(line.get_xdata()) > 1]
    return boxes


@pytest.mark.parametrize("name", ["recovery_by_style", "recovery_by_code", "failure_modes", "context_tokens", "loop_breaker"])
def test_chart_legends_and_notes_sit_off_the_data(name):
    from matplotlib.figure import Figure

    from atlas_kit.face.charts import CHARTS

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    records = _records()
    fig = Figure(figsize=(7.0, 4.4))
    ax = CHARTS[name](records, ax=fig.add_subplot())
    fig.tight_layout()
    renderer = FigureCanvasAgg(fig).get_renderer()
    legends = [a.get_legend() for a in fig.axes if a.get_legend() is not None]
    data = _data_boxes(ax, renderer)
    assert data, "the chart drew nothing to protect"
    for legend in legends:
        box = legend.get_window_extent(renderer)
        assert not any(box.overlaps(d) for d in data), f"{name}: the legend covers data"
        assert not ax.get_window_extent(renderer).overlaps(box), f"{name}: the legend sits inside the plot"


def test_the_single_arm_loop_breaker_note_is_in_the_title_not_on_the_plot():
    from matplotlib.figure import Figure

    from atlas_kit.face.charts import loop_breaker

    fig = Figure()
    ax = loop_breaker(_records(), ax=fig.add_subplot())
    assert "nothing to compare" in ax.get_title()
    assert not [t for t in ax.texts if "nothing to compare" in t.get_text()]


# --- the playground before a run -------------------------------------------------------------------------------

def test_the_playground_shows_its_settings_without_a_widget_manager():
    from atlas_kit.face.playground import Playground

    pg = Playground(seed=0)
    pg.ticket.value = "T05"
    bundle = pg._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle  # live in a running kernel
    assert "VBox(" not in bundle["text/plain"] and "T05" in bundle["text/plain"] and "simulated" in bundle["text/plain"]
    assert "T05" in bundle["text/html"] and "run this cell" in bundle["text/html"]
    pg.style.value = "compose"
    assert "What the model will read" in pg._repr_mimebundle_()["text/html"]


def test_the_playground_result_keeps_dollar_amounts_out_of_math():
    from atlas_kit.face.playground import Playground

    pg = Playground(seed=0)
    pg.ticket.value = "T04"  # a $650.00 refund over the $500.00 ceiling: amounts in the report and the transcript
    pg.run()
    assert "$650.00" in re.sub(r"<[^>]+>", "", pg.result.value)
    assert not html_dollars(pg.result.value) and not html_dollars(pg._repr_mimebundle_()["text/html"])


# --- kernels start without the plain-TCP warning ---------------------------------------------------------------

def _tiny(tmp_path):
    path = tmp_path / "00_tiny.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")]), path)
    return path


def test_a_plain_kernel_start_warns_so_the_next_tests_can_fail(tmp_path, capfd):
    from nbclient import NotebookClient

    NotebookClient(nbformat.read(_tiny(tmp_path), as_version=4), kernel_name="python3").execute()
    assert "without encryption" in capfd.readouterr().err


def test_the_course_runner_starts_kernels_quietly(tmp_path, capfd):
    nb, _ = course.execute_offline(_tiny(tmp_path))
    assert nb.cells[0].outputs[0]["text"] == "42\n"
    assert "without encryption" not in capfd.readouterr().err


def test_papermills_atlas_engine_starts_kernels_quietly(tmp_path, capfd):
    papermill = pytest.importorskip("papermill")
    out = tmp_path / "out.ipynb"
    papermill.execute_notebook(str(_tiny(tmp_path)), str(out), kernel_name="python3", progress_bar=False, engine_name="atlas")
    assert "42" in out.read_text() and "without encryption" not in capfd.readouterr().err


# --- the closing line and the README's papermill command -------------------------------------------------------

def test_the_closing_line_names_a_command_for_where_it_runs(monkeypatch, tmp_path):
    monkeypatch.delenv("JUPYTER_SERVER_URL", raising=False)
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(course.shutil, "which", lambda name: None)  # not on PATH: name the one beside python
    line = course.closing_line(Path("results/course"))
    jupyter = Path(sys.executable).parent / "jupyter"
    assert f"lab --ServerApp.root_dir=. chapters/00_start_here.ipynb" in line
    assert line.split(": ", 1)[1].startswith(str(jupyter.absolute().relative_to(ROOT)) if jupyter.absolute().is_relative_to(ROOT) else str(jupyter))
    monkeypatch.setattr(course.shutil, "which", lambda name: str(jupyter))  # on PATH (Binder, an active venv)
    assert course.closing_line(Path("out")).endswith("jupyter lab --ServerApp.root_dir=. chapters/00_start_here.ipynb")
    assert ".venv" not in course.closing_line(Path("out"))
    monkeypatch.setenv("JUPYTER_SERVER_URL", "http://127.0.0.1:8888/")  # a terminal inside JupyterLab or Binder
    monkeypatch.setenv("JUPYTER_SERVER_ROOT", str(ROOT))
    assert course.closing_line(Path("out")).endswith("open chapters/00_start_here.ipynb in this JupyterLab's file browser")


@pytest.mark.parametrize("value,want", [
    (["raw", "contract"], ["raw", "contract"]), (("raw",), ["raw"]), ('["raw", "contract"]', ["raw", "contract"]),
    ("raw,contract", ["raw", "contract"]), (" raw , generic ", ["raw", "generic"]),
])
def test_a_list_parameter_accepts_a_list_or_text(value, want):
    assert course.listed(value, name="styles") == want


@pytest.mark.parametrize("value,fragment", [("['raw', 'contract']", "double quotes"), ('{"a": 1}', "should be a list"),
                                            ("", "should be a list"), (3, "should be a list")])
def test_a_bad_list_parameter_gets_one_clear_line(value, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        course.listed(value, name="styles")


def _readme_block(marker: str) -> str:
    text = (ROOT / "README.md").read_text()
    after = text.split(marker, 1)[1]
    return after.split("```bash\n", 1)[1].split("```", 1)[0].strip()


def test_the_readme_papermill_command_runs_as_written(tmp_path):
    """The command's own arguments, through papermill's own CLI (--prepare-only: parameters injected, nothing run),
    then the chapter's cells up to its setup in this process: the list parameter must arrive as a list."""
    pytest.importorskip("papermill")
    args = shlex.split(_readme_block("<!-- papermill-command -->"))
    assert Path(args[0]).name == "papermill" and "--engine" in args
    src, out = ROOT / args[1], tmp_path / "out.ipynb"
    papermill = Path(sys.executable).parent / "papermill"
    done = subprocess.run([str(papermill), str(src), str(out), *args[3:], "--prepare-only"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    nb = nbformat.read(out, as_version=4)
    scope: dict = {}
    with contextlib.redirect_stdout(io.StringIO()) as said:
        for cell in nb.cells:
            if cell.cell_type == "code":
                exec(cell.source, scope)  # noqa: S102 - our own chapter's first cells
                if "setup(" in cell.source:
                    break
    assert scope["styles"] == ["raw", "contract"] and scope["trials"] == 20
    assert "styles=['raw', 'contract']" in said.getvalue()


def test_binder_pins_papermill_like_the_rest():
    pins = dict(line.split("==") for line in (ROOT / "binder" / "requirements.txt").read_text().splitlines()
                if "==" in line and not line.startswith("#"))
    from importlib.metadata import version

    assert pins.get("papermill") == version("papermill")


# --- sources ---------------------------------------------------------------------------------------------------

GUIDE = "https://www.anthropic.com/engineering/writing-tools-for-agents"


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_each_chapter_links_the_guide_and_its_sources(path):
    nb = nbformat.read(path, as_version=4)
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "## Sources" in prose, "add a '## Sources' section listing the guide and the documents the chapter draws on"
    links = re.findall(r"\]\((https?://[^)\s]+)\)", prose.split("## Sources", 1)[1])
    assert GUIDE in links, f"the Sources section links {links}; it should link the guide too"


# --- minutes: the README's course map and each chapter's opening line give the figure scripts/minutes.py computes --

import minutes  # noqa: E402  (scripts/ is not a package)


def test_each_chapter_states_the_minutes_its_length_gives_and_the_readme_agrees() -> None:
    readme = minutes.readme_minutes((ROOT / "README.md").read_text())
    wrong = []
    for path in CHAPTERS:
        computed, stated = minutes.chapter_minutes(path), minutes.header_minutes(path)
        listed = readme.get(path.name[:2])
        if not computed == stated == listed:
            wrong.append(f"{path.stem}: computed {computed}, header {stated}, README {listed}")
    assert len(readme) == len(CHAPTERS), f"the README's course map lists {sorted(readme)}"
    assert not wrong, "run `python scripts/minutes.py --write`:\n" + "\n".join(wrong)


def test_the_minutes_rule_counts_what_a_reader_reads(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 99 · A title\n\n" + "word " * 1400)]  # 10 minutes of prose
    path = tmp_path / "99_a.ipynb"
    nbformat.write(nb, path)
    assert minutes.chapter_minutes(path) == 10
    code = nbformat.v4.new_code_cell("x = 1\n" * 250)  # 500 words of code: 5 minutes, plus running it
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="figure " * 1000)]  # 5 minutes of output
    nb.cells.append(code)
    nbformat.write(nb, path)
    assert minutes.chapter_minutes(path) == 20
    minutes._write(path, 20)
    assert minutes.header_minutes(path) == 20
    assert nbformat.read(path, as_version=4).cells[0].source.startswith("# 99 · A title\n\n*About 20 minutes")


def test_a_print_the_kernel_cut_in_two_is_stored_as_one_output() -> None:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print(x)")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="}"),
                    nbformat.v4.new_output("stream", name="stdout", text="\n"),
                    nbformat.v4.new_output("stream", name="stderr", text="a warning\n"),
                    nbformat.v4.new_output("stream", name="stdout", text="after\n")]
    nb.cells = [cell]
    outs = run_notebooks.clean(nb).cells[0].outputs
    assert [(o.name, "".join(o.text)) for o in outs] == [("stdout", "}\n"), ("stderr", "a warning\n"), ("stdout", "after\n")]

from __future__ import annotations

import pytest

from atlas_kit.experiments.sweep import run_experiment
from atlas_kit.experiments.metrics import groups, recovery
from atlas_kit.types.results import read_records

# The keys of atlas_kit.face.charts.CHARTS, for parametrize without importing matplotlib at collection (every xdist
# worker collects this file); test_the_parametrized_names_are_every_chart keeps the two the same.
CHART_NAMES = ["recovery_by_style", "recovery_by_code", "failure_modes", "context_tokens", "loop_breaker"]


@pytest.fixture(scope="module", autouse=True)
def matplotlib_names() -> None:
    """Import matplotlib and atlas_kit.face.charts when a test here first runs, not at collection."""
    global plt, Figure, CHARTS, recovery_by_style, save_charts
    import matplotlib

    matplotlib.use("Agg")  # tests never open a window (this switches pyplot too if another test imported it)

    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    from atlas_kit.face.charts import CHARTS, recovery_by_style, save_charts


def test_the_parametrized_names_are_every_chart():
    assert CHART_NAMES == list(CHARTS)


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """A tiny results file from a real offline sweep, read back as the charts would read it."""
    out = tmp_path_factory.mktemp("charts") / "tiny.jsonl"
    run_experiment(name="charts", styles=("raw", "generic", "contract"), faults=(True,), break_loops=(True, False),
                   tickets=("T04", "T05", "T11"), trials=2, out=out, progress=False)
    return read_records(out)


@pytest.fixture
def mixed(records):
    live = dict(records[0], key="live-1", source="live (claude-sonnet-5-5, 2026-10-07)", source_kind="live",
                source_date="2026-10-07", model="claude-sonnet-5-5")
    return [*records, live]


@pytest.mark.parametrize("name", CHART_NAMES)
def test_each_chart_draws_on_the_given_axes_and_names_a_simulated_source(records, name):
    fig = Figure()
    ax = fig.add_subplot()
    assert CHARTS[name](records, ax=ax) is ax
    assert "Data: simulated (offline stand-in)" in ax.get_title()
    assert ax.patches  # it drew bars


@pytest.mark.parametrize("name", CHART_NAMES)
def test_each_chart_says_mixed_when_sources_are_mixed(mixed, name):
    ax = CHARTS[name](mixed, ax=Figure().add_subplot())
    title = ax.get_title()
    assert "mixed sources" in title and "live (claude-sonnet-5-5, 2026-10-07)" in title and "simulated" in title
    assert "the simulated episodes' result is set by the assumed rates" in title


@pytest.mark.parametrize("name", CHART_NAMES)
def test_a_chart_of_the_stand_ins_episodes_says_its_rates_set_the_result_and_a_live_one_does_not(records, name):
    simulated = CHARTS[name](records, ax=Figure().add_subplot()).get_title()
    assert simulated.splitlines()[-1] == "simulated: the result is set by the assumed rates"
    live = [dict(r, source="live (claude-sonnet-5-5, 2026-10-07)", source_kind="live", source_date="2026-10-07",
                 model="claude-sonnet-5-5") for r in records]
    title = CHARTS[name](live, ax=Figure().add_subplot()).get_title()
    assert "Data: live (claude-sonnet-5-5, 2026-10-07)" in title and "assumed rates" not in title


def test_each_chart_makes_its_own_figure_when_given_no_axes(records):
    for draw in CHARTS.values():
        ax = draw(records)
        assert ax.figure is not None and "simulated" in ax.get_title()
        plt.close(ax.figure)


def test_recovery_bars_have_the_measured_heights_and_the_title_names_what_is_pooled(records):
    ax = recovery_by_style(records, ax=Figure().add_subplot())
    expected = [recovery(groups(records, "style")[s]).rate for s in ("raw", "generic", "contract")]
    assert [p.get_height() for p in ax.patches] == pytest.approx(expected)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["raw", "generic", "contract"]
    assert "pooled over loop breaker off/on" in ax.get_title()


def test_charts_with_nothing_to_show_say_so_instead_of_failing():
    ax = recovery_by_style([], ax=Figure().add_subplot())
    assert "No episodes" in ax.texts[0].get_text() and "no data" in ax.get_title()
    clean = [{"key": "k", "style": "raw", "faults": False, "break_loops": True, "profile": None, "model": "m",
              "ticket": "T01", "trial": 0, "source": "", "stop_reason": "finished", "correct": True, "labels": [],
              "hit_error": False, "error_codes": [], "steps": 2, "tool_calls": 1, "input_tokens": 5,
              "output_tokens": 1, "cost_usd": 0.0}]
    for draw in CHARTS.values():
        ax = draw(clean, ax=Figure().add_subplot())
        assert "unlabelled source" in ax.get_title()


def test_save_charts_writes_every_chart_as_the_same_png_each_time(records, tmp_path):
    first = save_charts(records, tmp_path / "a", prefix="x_")
    again = save_charts(records, tmp_path / "b", prefix="x_")
    assert [p.name for p in first] == [f"x_{name}.png" for name in CHARTS]
    for a, b in zip(first, again):
        data = a.read_bytes()
        assert data.startswith(b"\x89PNG") and data == b.read_bytes()

"""Charts of several models read at once (face/model_charts.py): one line per model in the data's order, each
with its own figures, and a title that names the data and says it is observational."""
from __future__ import annotations

import functools

import matplotlib
import matplotlib.pyplot as plt

from atlas_kit.face.model_charts import model_actions_chart, model_recovery_chart
from atlas_kit.transcripts import (Transcripts, agentdojo_runs, error_events, next_actions_by_model, read_transcripts,
                                   recovery_by_model, source_line)

matplotlib.use("Agg")


@functools.cache
def dojo() -> Transcripts:
    return read_transcripts([agentdojo_runs()])


def test_recovery_per_model_draws_each_model_s_two_rates_with_its_count_of_episodes():
    rows = recovery_by_model(dojo().episodes)
    ax = model_recovery_chart(rows, source=source_line(dojo(), names_only=True))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [f"{r.model} (n = {r.recovery.with_error.n})" for r in rows] and len(labels) == 21
    assert "observational" in ax.get_title() and "Wilson 95% intervals" in ax.get_title()
    drawn = [c.lines[0].get_xdata()[0] for c in ax.containers]  # each errorbar's point
    expected = [x for r in rows for x in (r.recovery.with_error.rate, r.recovery.without_error.rate)]
    assert sorted(drawn) == sorted(expected)
    plt.close(ax.figure)


def test_next_actions_per_model_stack_to_each_model_s_whole():
    rows = next_actions_by_model(error_events(dojo().episodes))
    ax = model_actions_chart(rows, source=source_line(dojo(), names_only=True))
    assert f"its {sum(r.errors for r in rows)} tool errors" in ax.get_title()
    ends = {}
    for bar in ax.patches:
        y = round(bar.get_y() + bar.get_height() / 2)
        ends[y] = max(ends.get(y, 0.0), bar.get_x() + bar.get_width())
    assert all(abs(ends[y] - 1.0) < 1e-9 for y in range(len(rows)))
    gemini = next(i for i, r in enumerate(rows) if r.model == "gemini-2.0-flash-exp")
    widths = [b.get_width() for b in ax.patches if round(b.get_y() + b.get_height() / 2) == gemini and b.get_width()]
    assert widths == [1.0]  # every one of its errors was followed by a reply
    plt.close(ax.figure)


def test_no_models_draws_an_empty_chart_that_says_so():
    ax = model_recovery_chart([], source="s")
    assert any("No models" in t.get_text() for t in ax.texts)
    plt.close(ax.figure)

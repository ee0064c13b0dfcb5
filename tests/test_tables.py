from __future__ import annotations

import pytest

from atlas_kit.face.tables import Table


def test_text_and_html_show_every_cell_and_the_caption():
    t = Table([["raw", 0.52, 27], ["contract", 1.0, 27]], ["style", "recovery", "n"], caption="simulated (offline)")
    text, html = repr(t), t._repr_html_()
    assert text.splitlines()[0] == "simulated (offline)"
    assert "contract  1         27" in text and "raw       0.52      27" in text
    assert "<td style='text-align:left'>0.52</td>" in html and "simulated (offline)" in html


def test_html_escapes_cells():
    assert "&lt;html&gt;" in Table([["<html>"]], ["raw"])._repr_html_()


def test_ragged_rows_are_refused():
    with pytest.raises(ValueError, match="row 0 has 1 cells for 2 columns"):
        Table([["a"]], ["x", "y"])


def test_the_paired_table_shows_the_paired_rows_with_their_caption():
    from atlas_kit.experiments.stats import paired_rows
    from atlas_kit.face.tables import paired_table

    records = [{"key": f"{s}{t}", "model": "m", "style": s, "faults": True, "break_loops": True, "profile": None,
                "ticket": f"T0{t}", "trial": 0, "seed": 0, "correct": s == "contract" or t == 0,
                "stop_reason": "finished", "source": "simulated (offline stand-in)", "source_kind": "simulated"}
               for s in ("raw", "contract") for t in range(4)]
    table, rows = paired_table(records), paired_rows(records)
    assert table.rows == [[str(c) for c in r] for r in rows.rows] and table.caption == rows.caption
    assert "McNemar p" in repr(table) and "contract - raw" in repr(table) and "3 / 0" in repr(table)

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

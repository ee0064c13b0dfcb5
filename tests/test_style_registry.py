"""Every place that offers a choice of error style takes it from the registry (dispatch/styles.STYLES), so a new
style is one function, one entry and its name in types.StyleName, and nothing else to edit."""
from __future__ import annotations

import pytest

from atlas_kit.cli.command import build_parser
from atlas_kit.dispatch.styles import STYLES
from atlas_kit.types.sets import STYLE_NAMES


def _choices(command: str, flag: str) -> object:
    sub = build_parser()._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
    return next(a for a in sub._actions if flag in a.option_strings)


def test_the_registry_and_the_literal_name_the_same_styles_in_the_same_order():
    assert tuple(STYLES) == STYLE_NAMES and "plain" in STYLES


def test_the_cli_offers_every_registered_style():
    styles = _choices("experiment", "--styles")
    assert styles.default == list(STYLES)
    assert build_parser().parse_args(["experiment", "--styles", "plain,contract"]).styles == ["plain", "contract"]
    assert tuple(_choices("mcp", "--style").choices) == tuple(STYLES)
    assert build_parser().parse_args(["mcp", "--style", "plain"]).style == "plain"


def test_the_mcp_server_takes_every_registered_style():
    pytest.importorskip("mcp")
    from atlas_kit.bridges.mcp.server import AtlasMCP

    for style in STYLES:
        assert AtlasMCP(style=style).style == style
    with pytest.raises(ValueError, match="plain"):
        AtlasMCP(style="fancy")


def test_the_playground_offers_every_registered_style_and_composing():
    pytest.importorskip("ipywidgets")
    from atlas_kit.face.playground import COMPOSE, Playground

    values = [value for _, value in Playground().style.options]
    assert values == [*STYLES, COMPOSE]


def test_the_inspect_task_accepts_every_registered_style():
    pytest.importorskip("inspect_ai")
    from atlas_kit.bridges.inspect import atlas

    for style in STYLES:
        assert atlas(style=style, tickets="T01").metadata["style"] == style


def test_charts_order_the_styles_as_the_registry_does():
    from atlas_kit.face.charts import _styles

    assert _styles([{"style": s} for s in reversed(STYLE_NAMES)]) == list(STYLES)  # type: ignore[list-item]

"""Build it yourself: check a dispatcher you wrote against the contract, and run it beside the library's.

probe (the tools and cases a dispatcher is checked with), properties (the seven rules), audit (running
them, with the smallest failing input), harness (your dispatcher in the agent loop). Chapter 13.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import exports

if TYPE_CHECKING:
    from .harness import compare as compare, tool_functions as tool_functions, your_session as your_session
    from .properties import PROPERTIES as PROPERTIES

__getattr__, __dir__, __all__ = exports(__name__, __file__)

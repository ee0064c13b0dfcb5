"""The network while an audit runs: with side effects off, a server started over stdio runs in a network namespace of
its own (Linux `unshare`: loopback only), and replies or stderr that show a blocked attempt are reported.

Where no namespace can be made (not Linux, no `unshare`, user namespaces refused) the report says the network was not
blocked. A server reached by URL or run in this process cannot be confined here. Chapter 10.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from functools import lru_cache
from typing import Iterable

from .outcomes import Outcome

__all__ = ["OFFLINE_ENV", "OFFLINE_HINT", "confined", "netns_prefix", "tried_network"]

# Package runners told to use their caches: in a namespace with no network, `npx -y` would otherwise retry the
# registry for minutes before starting a server it already has (measured: 141 s against 1.1 s with these).
OFFLINE_ENV = {"npm_config_offline": "true", "UV_OFFLINE": "1", "PIP_NO_INDEX": "1"}

OFFLINE_HINT = (" It ran with no network (side effects are off): a server that installs itself as it starts (npx, "
                "uvx) needs its package cached first, or pass --allow-network.")

# What a blocked attempt looks like from the inside: Node's and Python's words for no route and no name lookup.
_TRIED = re.compile(r"\b(?:ENETUNREACH|EAI_AGAIN|ENOTFOUND|EHOSTUNREACH|getaddrinfo)\b|Network is unreachable|"
                    r"Temporary failure in name resolution|Name or service not known|\[Errno (?:-[235]|101|113)\]|"
                    r"fetch failed|No address associated with hostname")


@lru_cache(maxsize=1)
def netns_prefix() -> tuple[str, ...]:
    """A command prefix that runs a program in a network namespace of its own, or () where none can be made."""
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return ()
    for prefix in (("unshare", "--net", "--"), ("unshare", "--map-current-user", "--net", "--"),
                   ("unshare", "--map-root-user", "--net", "--")):
        try:
            done = subprocess.run([*prefix, sys.executable, "-c", ""], capture_output=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return prefix
    return ()


def confined(argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str], str]:
    """A command and its environment run with no network: inside a network namespace, its package runners told to
    use their caches; and the report's line on whether that worked."""
    prefix = netns_prefix()
    if not prefix:
        return argv, env, ("not blocked: no network namespace could be made here (it needs Linux, unshare and user "
                           "namespaces); a tool that reaches the network may have done so")
    return ([*prefix, *argv], {**OFFLINE_ENV, **env},
            "blocked: the server ran in a network namespace of its own (unshare), with no route out")


def tried_network(outcomes: Iterable[tuple[str, Outcome]], stderr: str, *, blocked: bool) -> list[str]:
    """Notes for each case (tool name, outcome) whose reply shows a network attempt, and for the server's stderr if
    it shows one; `blocked`: whether the server ran with no network."""
    what = "the namespace stopped it" if blocked else "it was not blocked"
    notes = []
    for tool, o in outcomes:
        found = _TRIED.search(o.reply.text) if o.reply is not None else None
        if found:
            notes.append(f"{tool}'s {o.case.kind} case tried to reach the network ({what}): {found.group(0)!r} in "
                         "its reply")
    said = _TRIED.search(stderr)
    if said and not notes:
        notes.append(f"the server tried to reach the network ({what}): {said.group(0)!r} on its stderr")
    return notes[:5]

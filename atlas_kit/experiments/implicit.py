"""The explicit/implicit x transient/permanent 2x2: recovery per cell with Wilson intervals, and a sweep.

A ticket's cell follows from its faults (atlas.cell_of). Recovery per cell is P(correct) over that cell's
episodes run with faults on: an implicit fault raises no error, so metrics.recovery, which counts only
episodes where an error reached the model, cannot see one. Beside it, the share of answers that passed
on a silently wrong figure (the grader's silent_wrong). Chapter 14.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from ..atlas.tickets import ALL_TICKETS, IMPLICIT_TICKETS
from ..atlas.faults import CELLS, cell_of
from ..dispatch.styles import STYLES
from ..atlas.faults import Cell
from ..atlas.grade import SILENT_WRONG
from .episodes import Episode, profile_named
from .running import run_episode
from ..stats import Rate
from .metrics import usable
from ..models.choose import choose_model
from ..models.standin.model import OFFLINE_MODEL, STANDIN_SOURCE, Profile, offline_client
from .captions import data_caption
from .results import Condition
from ..types.records import Record, TableRows
from ..types.exceptions import AtlasKitValueError

if TYPE_CHECKING:
    import anthropic


def ticket_cell(ticket_id: str) -> Cell | None:
    """The cell a ticket's own faults exercise; None for a ticket with no faults or faults in several cells."""
    t = ALL_TICKETS.get(ticket_id)
    return None if t is None else cell_of(t.faults)


def cell_name(cell: Cell) -> str:
    """A cell as a table shows it: "implicit, permanent"."""
    return f"{cell[0]}, {cell[1]}"


@dataclass(frozen=True)
class CellRates:
    """One cell in one arm: how many episodes ended correct, and how many passed on a silently wrong figure."""

    cell: Cell
    arm: object  # the value of `by` in this arm: a style name by default
    recovered: Rate
    silent_wrong: Rate


def recovery_by_cell(records: Sequence[Record], *, by: str = "style") -> dict[tuple[Cell, object], CellRates]:
    """Per (cell, value of `by`), over faults-on episodes of tickets with a cell; cells in CELLS order."""
    out: dict[tuple[Cell, object], list[Record]] = {}
    for r in usable(records):
        cell = ticket_cell(r["ticket"]) if r.get("faults") else None
        if cell is not None:
            out.setdefault((cell, r.get(by)), []).append(r)
    order = sorted(out, key=lambda k: (CELLS.index(k[0]), str(k[1])))
    return {k: CellRates(k[0], k[1], Rate(sum(bool(r["correct"]) for r in out[k]), len(out[k])),
                         Rate(sum(SILENT_WRONG in r["labels"] for r in out[k]), len(out[k]))) for k in order}


def cell_rows(records: Sequence[Record], *, by: str = "style") -> TableRows:
    """Recovery and silently wrong answers per cell and arm, each with its Wilson 95% interval, captioned
    (tables.cell_table shows them)."""
    rows: list[list[object]] = [[cell_name(c.cell), c.arm, c.recovered.n, c.recovered.brief, c.silent_wrong.brief]
                                for c in recovery_by_cell(records, by=by).values()]
    caption = ("Recovery = P(correct) over the cell's episodes with faults on; silently wrong = the answer passed on "
               f"a figure only a silently wrong result gave. {data_caption(records)}")
    return TableRows(["cell", by, "episodes", "recovered [95% CI]", "silently wrong [95% CI]"], rows, caption)


def sweep(*, styles: Sequence[str] = ("raw", "contract"), tickets: Sequence[str] | None = None, trials: int = 5,
          first_seed: int = 0, model: str | None = "offline", profile: Profile | str | None = None,
          experiment: str = "implicit") -> list[Record]:
    """Run the implicit-failure tickets (T28-T39 by default) in each style with their faults on; the records.

    The same episodes, keys and grading as a sweep (experiments.run_episode), one at a time in memory: the
    stand-in gets one client per seed; a live model (with ANTHROPIC_API_KEY) runs through its sync client.
    Order: styles, then tickets, then trials; trial n runs with seed first_seed + n.
    """
    ids = list(IMPLICIT_TICKETS) if tickets is None else list(tickets)
    unknown = [t for t in ids if t not in ALL_TICKETS]
    if unknown or not ids:
        raise AtlasKitValueError(f"tickets: {', '.join(map(repr, unknown)) or 'none given'}; use ids from T01 to "
                         f"{list(ALL_TICKETS)[-1]}.")
    odd = [s for s in styles if s not in STYLES]
    if odd or isinstance(styles, str) or not styles:
        raise AtlasKitValueError(f"styles must be a list drawn from {', '.join(STYLES)}; got {styles!r}.")
    for value, name, least in ((trials, "trials", 1), (first_seed, "first_seed", 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise AtlasKitValueError(f"{name} must be a whole number of at least {least}; got {value!r}.")
    choice = None if model in (None, "offline", OFFLINE_MODEL) else choose_model(model)
    if choice is not None and choice.mode == "offline":  # no key: the stand-in answers, and its records say so
        choice = None
    chosen = profile_named(profile) if choice is None else None
    condition = [Condition(style, True, True, chosen.name if chosen else None, choice.model if choice else OFFLINE_MODEL)
                 for style in dict.fromkeys(styles)]
    episodes = [Episode(c, t, n, first_seed) for c in condition for t in dict.fromkeys(ids) for n in range(trials)]
    clients: dict[int, anthropic.Anthropic] = {}
    records = []
    for e in episodes:
        if choice is None:
            if e.seed not in clients:  # the stand-in's choices depend on (seed, ticket, turn): one client per seed
                clients[e.seed] = offline_client(seed=e.seed, profile=chosen)
            client, source = clients[e.seed], STANDIN_SOURCE
        else:
            client, source = choice.client, choice.source
        records.append(run_episode(client, e, source=source, experiment=experiment))
    return records

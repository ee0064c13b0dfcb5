"""Judge answers taken out of a learner's kernel (take.py) in a fresh kernel their notebook never ran in.

The checking kernel loads the chapter's checks (`prepare`), records every name the watched modules bind (the
baseline), and records each module imported later as its import completes (recorder.py); then, per exercise, it
rebuilds the answer from its JSON and checks it. Data answers run no learner code at all. A function
answer (and any statement of the notebook it needs) does run here, while it is checked: what it changes in
atlas_kit, in the modules the checks use, in an atlas_kit registry's entries or in the import machinery is
compared with the baseline after every check, and a change makes the row `tampered`; so does an atlas_kit module
that reached sys.modules without being imported. Code written to attack the
grader from inside a function (frame or C-level tricks, a thread that undoes its patch in time) is out of reach.
"""
from __future__ import annotations

import builtins
import dataclasses
from dataclasses import dataclass
import enum
import importlib
import json
import linecache
import os
import sys
import textwrap
from types import ModuleType
from typing import Callable, Iterable, NoReturn

from .recorder import install
from ...types.exceptions import AtlasKitValueError

Entries = frozenset[tuple[str, str, int]]
Entry = tuple[str, str, int]


@dataclass(frozen=True)
class Baseline:
    """What the watched modules bound before any answer ran, and (`later`) what each module imported since bound as
    its import completed, with the objects themselves kept alive: an id is only an object's while it lives, and a
    patch that frees the original could otherwise reuse its id."""

    entries: Entries
    kept: tuple[object, ...]
    later: set[Entry] = dataclasses.field(default_factory=set)
    kept_later: list[object] = dataclasses.field(default_factory=list)

WATCHED = ("atlas_kit", "builtins", "importlib", "json", "inspect", "ast", "dataclasses", "functools", "linecache",
           "types", "typing", "io", "os", "posixpath", "re", "math", "enum", "abc", "collections", "copy", "operator",
           "textwrap", "jsonschema")
# Rebound by the kernel itself: sys's by any cell that raised, input by ipykernel before every cell.
_UNWATCHED = {("sys", "last_type"), ("sys", "last_value"), ("sys", "last_traceback"), ("sys", "last_exc"),
              ("builtins", "input"), ("builtins", "_")}



def prepare(*, watch: bool = True, chapters: Iterable[str] | None = None) -> Baseline:
    """Load the checks of `chapters` (all of them by default) before any learner code; with `watch` (an answer will
    run code here), record what the watched modules bind now, and each module imported from now on as its import
    completes. Without it the baseline is empty: data answers run no code to watch."""
    from atlas_kit.course.checks.run import load

    for chapter in [None] if chapters is None else chapters:
        load(chapter)
    if not watch:
        return Baseline(frozenset(), ())
    later: set[Entry] = set()
    kept_later: list[object] = []

    def record(module: ModuleType) -> None:
        _bound(module.__name__, module, later.add, kept_later.append)

    install(_watched, record)  # before the snapshot, so the recorder is in the baseline's sys.meta_path
    kept: list[object] = []
    return Baseline(snapshot(kept), tuple(kept), later, kept_later)


def _watched(name: str) -> bool:
    return any(name == w or name.startswith(w + ".") for w in WATCHED)


def snapshot(kept: list[object] | None = None) -> Entries:
    """(module, name, id) of everything the watched modules bind, their classes' members, the import hooks, and
    the entries of atlas_kit's module-level dicts (the checks' registry is one). Each object is added to `kept`."""
    seen: set[Entry] = set()
    keep = kept.append if kept is not None else (lambda value: None)
    for name, module in list(sys.modules.items()):
        if isinstance(module, ModuleType) and _watched(name):
            _bound(name, module, seen.add, keep)
    for hook in ("meta_path", "path_hooks"):
        for i, item in enumerate(getattr(sys, hook)):
            seen.add((f"sys.{hook}", str(i), id(item)))
            keep(item)
    seen.add(("sys.modules", "", id(sys.modules)))
    return frozenset(seen)


def _bound(name: str, module: ModuleType, add: Callable[[Entry], None], keep: Callable[[object], None]) -> None:
    """Add (where, name, id) for module `name` in sys.modules, each name it binds and, for atlas_kit's modules, the
    members of the classes it defines and the entries of its dicts; keep each object alive."""
    add(("sys.modules", name, id(module)))
    ours = name.startswith("atlas_kit")
    for attr, value in list(vars(module).items()):
        if (name, attr) in _UNWATCHED:
            continue
        add((name, attr, id(value)))
        keep(value)
        if ours and isinstance(value, type) and value.__module__ == name:
            for member, inner in list(vars(value).items()):
                add((f"{name}.{value.__qualname__}", member, id(inner)))
                keep(inner)
        elif ours and isinstance(value, dict) and not attr.startswith("__"):
            for key, item in list(value.items()):
                add((f"{name}.{attr}[]", repr(key)[:80], id(item)))
                keep(item)


def changed(baseline: Baseline) -> list[str]:
    """What differs from the baseline and the imports recorded since: names rebound or removed, dict entries changed
    or removed, import hooks added, atlas_kit modules in sys.modules that were never imported through the recorder
    (an entry added to a dict is not a change: caches grow)."""
    now = snapshot()
    known = baseline.entries | baseline.later
    before = {(where, name) for where, name, _ in known}
    out = {f"{where}.{name}" if not where.endswith("[]") else f"{where[:-2]}[{name}]" for where, name, _ in known - now}
    out |= {f"{where}.{name}" for where, name, _ in now - known if (where, name) not in before
            and (where == "sys.modules" and name.startswith("atlas_kit") or where.startswith("sys.meta_path"))}
    return sorted(out)


def judge(key: str, payload_path: str, result_path: str, baseline: Baseline, baseline_id: int) -> None:
    """Rebuild the answer in `payload_path`, check it, compare with the baseline; write the verdict once.

    The verdict's file is created exclusively: one the answer made beforehand stops the grading (tampered)."""
    from atlas_kit.course.checks._registry import BLANK
    from atlas_kit.course.checks.run import check

    dump, create, write, close, compare = json.dumps, os.open, os.write, os.close, changed  # before any learner code
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    with open(payload_path, encoding="utf-8") as raw:
        payload = json.load(raw)
    result: dict[str, object]
    try:
        answer = rebuild(payload, key)
    except Exception as exc:
        result = {"kind": "unrebuilt", "detail": f"{type(exc).__name__}: {exc}"}
    else:
        feedback = check(key, answer)
        result = {"kind": "checked", "ok": feedback.ok is True, "message": str(feedback.message),
                  "blank": feedback.ok is not True and feedback.message == BLANK}
    replaced = (compare(baseline) if baseline.entries else []) + (
        ["the grader's baseline"] if id(baseline) != baseline_id else [])
    if replaced:
        result = {"kind": "tampered", "replaced": replaced}
    fd = create(result_path, flags, 0o600)
    try:
        write(fd, dump(result).encode("utf-8"))
    finally:
        close(fd)


def rebuild(payload: dict[str, object], key: str) -> object:
    """The answer a payload describes: its env, then the notebook's statements in order, then its value."""
    ns: dict[str, object] = {"__builtins__": builtins, "__name__": "__main__"}
    counter = iter(range(1_000_000))

    def value(node: object) -> object:
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [value(v) for v in node]
        if not isinstance(node, dict) or len(node) not in (1, 2):
            raise AtlasKitValueError("the answer's data is not in the grader's format")
        tag = next(iter(node))
        inner = node[tag]
        simple: dict[str, Callable[[object], object]] = {
            "$tuple": lambda v: tuple(value(x) for x in _list(v)), "$set": lambda v: {value(x) for x in _list(v)},
            "$frozenset": lambda v: frozenset(value(x) for x in _list(v)),
            "$dict": lambda v: {value(k): value(x) for k, x in (_pair(p) for p in _list(v))},
            "$float": lambda v: float(v) if v in ("nan", "inf", "-inf") else _bad(), "$ellipsis": lambda v: ...,
            "$module": lambda v: importlib.import_module(str(v)), "$ref": lambda v: _resolve(str(v)),
            "$function": lambda v: define(v if isinstance(v, dict) else _bad())}
        if tag in simple:
            return simple[tag](inner)
        if tag == "$enum":
            kind = _ours(inner, enum.Enum)
            return kind(value(node.get("value")))
        if tag == "$dataclass":
            kind = _ours(inner, None)
            fields = node.get("fields")
            return kind(**{str(k): value(v) for k, v in (fields if isinstance(fields, dict) else _bad()).items()})
        raise AtlasKitValueError(f"the answer's data has an unknown tag {tag[:20]!r}")

    def define(spec: dict[str, object]) -> object:
        name, source = str(spec.get("name")), str(spec.get("source"))
        given = spec.get("closure")
        closure: dict[str, object] = given if isinstance(given, dict) else {}
        params = [p for p in closure if str(p).isidentifier()]
        body = f"return ({source.strip()})" if spec.get("lambda") else f"{source}\nreturn {name}"
        text = f"def _atlas_make({', '.join(params)}):\n{textwrap.indent(body, '    ')}\n"
        make = _define(text, f"<answer {key}: {name} #{next(counter)}>", ns)
        return make(*(value(closure[p]) for p in params))

    env = payload.get("env")
    for name, node in (env if isinstance(env, dict) else {}).items():
        ns[str(name)] = value(node)
    statements = payload.get("statements")
    for item in statements if isinstance(statements, list) else []:
        name, source = _pair(item)
        _run(str(source), f"<answer {key}: the notebook's statement binding {name}>", ns)
    return value(payload.get("value"))


def _run(text: str, filename: str, ns: dict[str, object]) -> None:
    """Run `text` in `ns`, keeping its source where inspect.getsource finds it (the blank check reads it)."""
    linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
    exec(compile(text, filename, "exec"), ns)


def _define(text: str, filename: str, ns: dict[str, object]) -> Callable[..., object]:
    """The `_atlas_make` factory that `text` defines in `ns`, taken out of `ns` again."""
    _run(text, filename, ns)
    make = ns.pop("_atlas_make")
    assert callable(make)
    return make


def _resolve(path: str) -> object:
    module, _, qualname = path.partition(":")
    found: object = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def _ours(path: object, base: type | None) -> Callable[..., object]:
    kind = _resolve(str(path))
    if not (isinstance(kind, type) and str(path).startswith("atlas_kit.")
            and (issubclass(kind, base) if base is not None else dataclasses.is_dataclass(kind))):
        raise AtlasKitValueError(f"{str(path)[:80]} is not one of atlas_kit's enums or dataclasses")
    return kind


def _list(node: object) -> list[object]:
    return node if isinstance(node, list) else _bad()


def _pair(node: object) -> tuple[object, object]:
    if isinstance(node, list) and len(node) == 2:
        return node[0], node[1]
    return _bad()


def _bad() -> NoReturn:
    raise AtlasKitValueError("the answer's data is not in the grader's format")

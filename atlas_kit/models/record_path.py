"""Where a recording goes: its cassette path, checked before any call is paid for, and the cassette it adds to.

A recording never shrinks or replaces a cassette: a cassette already at the path is loaded and added to, and a
path that cannot take one (a folder, under a file, read-only, another kind of file, another model's cassette) is
refused with one line before anything is sent. Chapters 00 and 11.
"""
from __future__ import annotations

import os
from pathlib import Path

from ..types.exceptions import AtlasKitValueError
from .cassette import Cassette

__all__ = ["cassette_to_extend", "check_cassette_path"]


def cassette_to_extend(path: str | os.PathLike[str], *, model: str, server: str | None) -> Cassette | None:
    """The cassette a recording to `path` adds to (None when there is none yet), checked before any call is sent.

    Recording never shrinks or replaces a cassette: every call it holds is kept, and the new ones are added after
    them. Refused with one line (ValueError) when the path is a folder, is under a file, is not a regular file, is
    read-only (by its mode bits, so root is refused too) or cannot be written, or holds a file that is not an
    atlas_kit cassette of this model and server.
    """
    target = Path(path)
    where = f"the cassette path {target} (record=, --record)"
    check_cassette_path(target)
    if not target.exists():
        return None
    try:
        held = Cassette.load(target)
    except AtlasKitValueError:
        raise AtlasKitValueError(f"{where} holds a file that is not an atlas_kit cassette; a recording adds to a "
                                 "cassette and never replaces another file: give a new path. Nothing was "
                                 "sent.") from None
    if held.model != model or held.server != server:
        was = held.model + (f" on {held.server}" if held.server else "")
        now = model + (f" on {server}" if server else "")
        raise AtlasKitValueError(f"{where} holds calls of {was}, and this run records {now}; one cassette holds one "
                                 "model's calls: give another path. Nothing was sent.")
    return held


def check_cassette_path(path: str | os.PathLike[str]) -> None:
    """Refuse a cassette path that cannot be written, before a call is paid for: one line, with the fix (a folder,
    a path under a file, not a regular file, read-only by its mode bits or its owner, or an unwritable folder)."""
    target = Path(path)
    where = f"the cassette path {target} (record=, --record)"
    fix = "give a cassette file you can write to, such as cassettes/class.json; nothing was sent"
    if target.is_dir():
        raise AtlasKitValueError(f"{where} is a folder; {fix}.")
    if target.exists() and not target.is_file():
        raise AtlasKitValueError(f"{where} is not a regular file; {fix}.")
    above = next((p for p in target.parents if p.exists()), None)
    if above is not None and not above.is_dir():
        raise AtlasKitValueError(f"{where} cannot be written ({above} is a file, not a folder); {fix}.")
    if target.exists() and (not target.stat().st_mode & 0o222 or not os.access(target, os.W_OK)):
        raise AtlasKitValueError(f"{where} is read-only; a recording adds to a cassette and never overwrites one "
                                 "that is write-protected: make it writable, or give another path. Nothing was sent.")
    _try_folder(target, where, fix)


def _try_folder(target: Path, where: str, fix: str) -> None:
    """Write and sync a small placeholder in the cassette's folder (made if missing), so a folder that is read-only,
    full or not a folder at all is found now, not when the paid calls are saved."""
    probe = target.parent / f".{target.name}.{os.getpid()}.check"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(probe, "w", encoding="utf-8") as f:
            f.write("{}\n")
            f.flush()
            os.fsync(f.fileno())
    except OSError as err:
        raise AtlasKitValueError(f"{where} cannot be written ({err.strerror or type(err).__name__}); {fix}.") from None
    finally:
        if probe.exists():
            probe.unlink()

"""A private copy of the files beside a learner's notebook, for its kernel's folder (a CSV it reads, say).

Only when the notebook has a folder of its own (no other notebook in it): a class handed in as one flat folder
shares nothing between learners. Regular files only (no links, no folders), each at most FILE_LIMIT bytes and
TOTAL_LIMIT in all; what is left out is said in a note.
"""
from __future__ import annotations

import re
import shutil
import stat
from pathlib import Path

FILE_LIMIT = 10 * 2 ** 20
TOTAL_LIMIT = 50 * 2 ** 20
_GRADERS = re.compile(r"kernel\.json|blocked\.log|baseline|(answer|payload|verdict)-[0-9]+\.json")  # its own files


def copy_companions(notebook: Path, folder: Path) -> list[str]:
    """Copy the files beside `notebook` into `folder`; the notes to add (what was left out, and why)."""
    try:
        beside = sorted(p for p in notebook.parent.iterdir() if p != notebook)
    except OSError:
        return []
    if any(p.suffix == ".ipynb" for p in beside):
        return []
    left: list[str] = []
    total = 0
    for path in beside:
        try:
            info = path.lstat()
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode) or path.name.startswith("."):
            continue  # a link, a folder, a socket, a hidden file: not the learner's data
        if info.st_size > FILE_LIMIT or total + info.st_size > TOTAL_LIMIT:
            left.append(path.name)
            continue
        if _GRADERS.fullmatch(path.name) or (folder / path.name).exists():
            left.append(path.name)  # a name the grader writes itself
            continue
        try:
            shutil.copyfile(path, folder / path.name, follow_symlinks=False)
        except OSError:
            left.append(path.name)
            continue
        total += info.st_size
    if not left:
        return []
    return [f"left out of its folder's copy: {', '.join(left[:3])}{' and more' if len(left) > 3 else ''} (over "
            f"{FILE_LIMIT // 2 ** 20} MB, {TOTAL_LIMIT // 2 ** 20} MB in all, a name the grader uses, or unreadable)"]

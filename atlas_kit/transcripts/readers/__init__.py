"""The transcript readers, one module per format behind one `Reader` protocol (base.py); files.py reads files
with a named format or sniffs each one (sniff.py) and counts each episode once. A new format is a new module here and
one entry in files.READERS. Chapter "Errors in the wild"."""
from __future__ import annotations

from .files import READERS, read_file

__all__ = ["READERS", "read_file"]

"""The environment variables that choose a model, by name only: importing this loads nothing else (no SDK).

choose.py reads them; the grader (course/grading/kernel.py) takes them out of a learner's kernel.
"""
from __future__ import annotations

MODEL_ENV = "ATLAS_MODEL"  # overrides the default; a notebook's `model` parameter overrides both
KEY_ENV = "ANTHROPIC_API_KEY"  # the only place a key is read from, and it goes only to Anthropic's API
BASE_URL_ENV = "ATLAS_BASE_URL"  # where a local server listens, when not at its default address

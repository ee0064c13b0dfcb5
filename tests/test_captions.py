"""What a caption says about where its results came from: the stand-in's always carry the note that its assumed
rates set the result; a live or replayed source's never do."""
from __future__ import annotations

import json
import re
from pathlib import Path

from atlas_kit.experiments.captions import SIMULATED_NOTE, data_caption, source_caption
from atlas_kit.types.records import Source


def test_a_caption_for_the_stand_in_says_its_rates_set_the_result_and_a_live_one_does_not():
    stand_in = source_caption(Source("simulated", "atlas-offline-1"))
    live = source_caption(Source("live", "claude-sonnet-5-5", "2026-10-07"))
    assert stand_in == "Source: simulated (offline stand-in). Simulated: the result is set by the assumed rates."
    assert live == "Source: live (claude-sonnet-5-5, 2026-10-07)." and SIMULATED_NOTE not in live.lower()


def test_records_of_mixed_sources_say_which_part_the_rates_set():
    simulated = {"source": "simulated (offline rule-based stand-in, not an LLM)", "source_kind": "simulated"}
    live = {"source": "live (claude-sonnet-5-5, 2026-10-07)", "source_kind": "live"}
    assert data_caption([simulated]).endswith("Simulated: the result is set by the assumed rates.")
    assert data_caption([live]) == "Data: live (claude-sonnet-5-5, 2026-10-07)."
    assert data_caption([simulated, live]).endswith("The simulated episodes' result is set by the assumed rates.")


def test_every_stored_caption_of_the_stand_in_s_runs_says_its_rates_set_the_result():
    """A table of the stand-in's runs in any stored chapter or solution names its source with the note, so no
    comparison on it reads as a finding (issue 50)."""
    root = Path(__file__).resolve().parent.parent
    bare = re.compile(rf"(?:Source|Data): simulated \(offline[^)]*\)\.(?! [Ss]{re.escape(SIMULATED_NOTE[1:])})")
    found = []
    for path in sorted([*root.glob("chapters/*.ipynb"), *root.glob("solutions/*.ipynb")]):
        for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            for out in cell.get("outputs", []):
                text = "".join(out.get("text", "")) + "".join(out.get("data", {}).get("text/plain", ""))
                found += [f"{path.name} cell {i}: {m.group(0)}" for m in bare.finditer(text)]
    assert not found, "\n".join(found)

"""What a caption says about where its results came from: the stand-in's always carry the note that its assumed
rates set the result; a live or replayed source's never do."""
from __future__ import annotations

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

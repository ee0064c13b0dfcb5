"""The provider seam (issue 49): a new provider is one class and one registry line, and the type checker refuses a
provider that leaves out what every provider must say about itself."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import ClassVar

from fakes import LlamaCppFake

from atlas_kit import run_agent
from atlas_kit.atlas import atlas_session
from atlas_kit.cli import main
from atlas_kit.models import registry
from atlas_kit.models.choose import choose_model
from atlas_kit.models.providers.local import LocalServer
from atlas_kit.models.registry import parse_model

ROOT = Path(__file__).resolve().parent.parent


class Studio(LocalServer):
    """A server this repository does not know: everything but its name and spelling is LocalServer's."""

    name: ClassVar = "Studio"
    prefix: ClassVar = "studio"
    default_url: ClassVar = "http://localhost:1234"


def test_a_new_local_server_is_one_class_and_one_registry_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(registry.LOCAL, "studio", Studio)  # the one line
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert parse_model("studio:qwen3-4b") == registry.Spelling("studio", "qwen3-4b")
    with LlamaCppFake() as fake:  # any server that speaks the Messages API
        choice = choose_model("studio:qwen3-4b", base_url=fake.base_url)
        run = run_agent(choice.client, atlas_session("T01", style="contract", seed=0), model=choice.model,
                        source=choice.source)
        monkeypatch.setenv("ATLAS_BASE_URL", fake.base_url)
        code = main(["experiment", "--model", choice.spelling, "--styles", "contract", "--faults", "on", "--tickets",
                     "T01", "--trials", "1", "--no-progress", "--no-charts", "--out", str(tmp_path)])
    assert isinstance(choice.provider, Studio) and choice.spelling == "studio:qwen3-4b"
    assert run.stop_reason == "finished" and "via Studio" in choice.source.label and run.cost_usd == 0
    assert code == 0, capsys.readouterr().err
    record = json.loads((tmp_path / "experiment.jsonl").read_text().splitlines()[0])
    assert record["source_server"] == "Studio" and record["source"].startswith("live (local: qwen3-4b via Studio")


def test_the_type_checker_refuses_a_provider_that_leaves_out_a_required_member(tmp_path):
    # mypy with the project's own settings (its cache is warm in CI, which runs mypy first): a provider with no
    # name and no capabilities cannot be made, nor registered as a local server.
    half = tmp_path / "half_provider.py"
    half.write_text(textwrap.dedent('''
        from __future__ import annotations
        from typing import ClassVar
        from atlas_kit.models.providers.local import LocalServer
        from atlas_kit.models.registry import LOCAL

        class Half(LocalServer):
            prefix: ClassVar = "half"  # no name

        LOCAL["half"] = Half
        Half("http://localhost:1")
    '''))
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), str(half)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 1, done.stdout
    assert 'Cannot instantiate abstract class "Half" with abstract attribute "name"' in done.stdout
    assert "Only concrete class can be given" in done.stdout  # registering it is refused too
    assert "capabilities" not in done.stdout  # LocalServer says what it supports; only the name is missing

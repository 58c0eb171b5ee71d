"""An unknown provider is said before litellm is imported; the quick list never refuses one litellm routes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engine.model.model_check import known_providers
from tests.support.cli import hive_env


def test_the_quick_provider_list_covers_every_provider_litellm_routes() -> None:
    import litellm

    known = known_providers()
    assert known is not None
    assert {str(getattr(p, "value", p)) for p in litellm.provider_list} <= known


def test_an_unknown_provider_is_a_usage_error_before_litellm_is_imported(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hive_cli", "run", "hi", "-m", "nosuch/model", "-C", str(tmp_path)],
        env=hive_env(),
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    said = [line for line in done.stderr.splitlines() if not line.startswith("import time:")]
    assert said == [
        "hive: --model is 'nosuch/model', but the provider 'nosuch' is unknown: write provider/model, "
        "e.g. openai/gpt-4o, anthropic/claude-sonnet-4-5 or ollama/qwen2.5-coder"
    ]
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert "litellm" not in imported

"""What the memory store keeps has the known secrets replaced: a ``remember`` carrying a token keeps its marker."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine.memory.options import MemoryOptions
from engine.memory.provider import memory_for

TOKEN = "ghp_" + "Q7w8E9r0" * 4
API_KEY = "sk-passed-on-the-command-line-0042"


def test_a_memory_holding_a_secret_value_is_kept_with_its_marker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    path = tmp_path / "memory.sqlite3"
    memory = memory_for(MemoryOptions(enabled=True, path=path), tmp_path, api_key=API_KEY)

    kept = memory.remember(f"deploy with GITHUB_TOKEN={TOKEN} and key {API_KEY}", tags=[TOKEN])

    assert kept.text == "deploy with GITHUB_TOKEN=[redacted: $GITHUB_TOKEN] and key [redacted: model-api-key]"
    assert [m.text for m in memory.recall("deploy")] == [kept.text]
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT text, tags FROM memories").fetchall()
    assert rows == [(kept.text, "[redacted: $GITHUB_TOKEN]")]
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("memory.sqlite3*"))
    assert TOKEN.encode() not in stored and API_KEY.encode() not in stored

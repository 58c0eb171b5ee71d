"""The stores' caps from an untrusted project: it may lower its own outputs' caps, never the sessions' or checkpoints'."""

from __future__ import annotations

from pathlib import Path

from engine.config.settings import SettingsFile, overlay
from engine.config.validation import convert
from engine.trust.tighten import Given, tighten_settings


def effective(project: Given, root: Path, user: Given | None = None) -> tuple[SettingsFile, list[str]]:
    kept, ignored = tighten_settings(project, user or {}, root, trusted=False)
    return convert(overlay(kept, user or {}), SettingsFile), [item.shown for item in ignored]


def test_a_project_cannot_shrink_the_sessions_folder_every_project_shares(tmp_path: Path) -> None:
    settings, shown = effective({"stores": {"sessions_max_count": 1, "sessions_keep_days": 1}}, tmp_path)
    assert (settings.stores.sessions_max_count, settings.stores.sessions_keep_days) == (5_000, 365)
    assert shown == ["stores.sessions_max_count: 1", "stores.sessions_keep_days: 1"]


def test_a_project_cannot_shrink_the_undo_history(tmp_path: Path) -> None:
    settings, shown = effective({"checkpoints": {"max_count": 1, "max_bytes": 1}}, tmp_path)
    assert (settings.checkpoints.max_count, settings.checkpoints.max_bytes) == (5_000, 2_000_000_000)
    assert shown == ["checkpoints.max_count: 1", "checkpoints.max_bytes: 1"]


def test_a_project_may_lower_its_own_outputs_caps_but_not_raise_them(tmp_path: Path) -> None:
    lowered, shown = effective({"stores": {"outputs_max_count": 10, "output_file_max_bytes": 100_000}}, tmp_path)
    assert (lowered.stores.outputs_max_count, lowered.stores.output_file_max_bytes) == (10, 100_000) and shown == []
    raised, shown = effective(
        {"stores": {"outputs_max_bytes": 10**12}}, tmp_path, {"stores": {"outputs_max_bytes": 10**6}}
    )
    assert raised.stores.outputs_max_bytes == 10**6
    assert shown == ["stores.outputs_max_bytes: 1000000000000 (yours: 1000000)"]

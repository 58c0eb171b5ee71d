"""Suite-wide fixtures: no network but loopback, isolated user state, the scripted model server, a small disk."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import netblock
from tests.support.fixtures import llm_server, no_network
from tests.support.small_disk import small_disk

__all__ = ["llm_server", "no_network", "small_disk"]

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
netblock.install()

_HIVE_ENV = ("HIVE_MODEL", "HIVE_API_BASE", "HIVE_API_KEY", "HIVE_LOCAL_SERVERS", "HIVE_HOME")


@pytest.fixture(autouse=True)
def isolated_hive(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own HIVE_HOME, no configured model and no local-server probing."""
    home = tmp_path_factory.mktemp("hive_home")
    for name in _HIVE_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HIVE_HOME", str(home))
    monkeypatch.setenv("HIVE_LOCAL_SERVERS", "")
    yield home

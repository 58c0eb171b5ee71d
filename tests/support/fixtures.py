"""Pytest fixtures over the harness; import them into a conftest.py (`from tests.support.fixtures import ...`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support import netblock
from tests.support.llm_server import LLMServer


@pytest.fixture
def llm_server() -> Iterator[LLMServer]:
    """A fresh scripted model server, closed after the test."""
    with LLMServer() as server:
        yield server


@pytest.fixture
def no_network() -> Iterator[None]:
    """Block non-loopback connections for the duration of the test (left on if it was on before)."""
    was_installed = netblock.is_installed()
    netblock.install()
    yield
    if not was_installed:
        netblock.uninstall()

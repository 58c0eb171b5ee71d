"""Fixtures for the harness's own tests."""

from tests.support.fixtures import llm_server, no_network

__all__ = ["llm_server", "no_network"]

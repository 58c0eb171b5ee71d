"""The ``mcp`` section of the settings: how hive runs the MCP servers that ``plugins.yaml`` lists."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from engine.config.validation import StrictRecord


class McpOptions(StrictRecord, frozen=True):
    """How MCP servers are run; each server's own entry in ``plugins.yaml`` may override the timeouts."""

    enabled: bool = True
    """Connect the configured servers at all."""
    startup_timeout: Annotated[float, Meta(gt=0)] = 30.0
    """Seconds a server may take to connect and list its tools."""
    tool_timeout: Annotated[float, Meta(gt=0)] = 120.0
    """Seconds one tool call may take."""
    hot_reload: bool = True
    """Watch the configuration and restart only the servers whose entry changed."""

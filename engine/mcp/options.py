"""The ``mcp`` section of the settings: how hive runs the MCP servers that ``plugins.yaml`` lists."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class McpOptions(BaseModel):
    """How MCP servers are run; each server's own entry in ``plugins.yaml`` may override the timeouts."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    enabled: bool = True
    """Connect the configured servers at all."""
    startup_timeout: float = Field(default=30.0, gt=0)
    """Seconds a server may take to connect and list its tools."""
    tool_timeout: float = Field(default=120.0, gt=0)
    """Seconds one tool call may take."""
    hot_reload: bool = True
    """Watch the configuration and restart only the servers whose entry changed."""

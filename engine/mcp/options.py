"""The ``mcp`` section of the settings: how hive runs the MCP servers that ``plugins.yaml`` lists."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field


class McpOptions(BaseModel):
    """How MCP servers are run; each server's own entry in ``plugins.yaml`` may override the timeouts."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    enabled: bool = True
    """Connect the configured servers at all."""
    startup_timeout: float = Field(default=30.0, gt=0)
    """Seconds a server may take to connect and list its tools."""
    tool_timeout: float = Field(default=120.0, gt=0)
    """Seconds one tool call may take."""
    hot_reload: bool = True
    """Watch the configuration and restart only the servers whose entry changed."""


MCP_FILES = (".ironhive/plugins.yaml", ".ironhive/plugins.yml", ".mcp.json")


def unread_mcp_files(project_root: Path) -> list[Path]:
    """MCP server lists in the project that this version of hive does not read yet (so it can say so)."""
    return [project_root / name for name in MCP_FILES if (project_root / name).is_file()]

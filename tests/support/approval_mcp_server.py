"""An MCP server whose one tool decides approval questions, as ``--approval-tool`` puts them (tests only).

    python tests/support/approval_mcp_server.py LOG

``decide(tool_name, input, tool_use_id, ...)`` allows a call whose input holds no ``secret`` (Claude Code's answer
shape) and denies the others with a message; every question it was asked is appended to LOG as a JSON line.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer

server = MCPServer("approvals", version="1.0")
LOG = sys.argv[1]


@server.tool()
def decide(tool_name: str, input: dict[str, Any], tool_use_id: str = "", reason: str = "", request_id: str = "") -> str:
    """Allow or deny one tool call hive is asked about."""
    with open(LOG, "a", encoding="utf-8") as log:
        log.write(json.dumps({"tool_name": tool_name, "input": input, "tool_use_id": tool_use_id}) + "\n")
    if "secret" in json.dumps(input):
        return json.dumps({"behavior": "deny", "message": "no secrets, says the approval tool"})
    return json.dumps({"behavior": "allow", "updatedInput": input})


if __name__ == "__main__":
    server.run()

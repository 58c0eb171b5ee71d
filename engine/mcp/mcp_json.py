"""Claude Code's project ``.mcp.json``, read leniently into ``plugins.yaml`` entries.

``{"mcpServers": {name: {"command", "args", "env"} | {"type": "http"|"sse", "url", "headers"}}}``;
``type`` is optional for stdio servers. Keys hive does not know are ignored; a server hive cannot
use is skipped with a notice naming it, so another tool's file never stops hive from starting. The
file is read as hive's own are (a regular file of at most 256 KiB, no duplicate keys, no deep
nesting); one that fails that is a notice too, and none of its servers is used.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.config.files import CONFIG_FILE_LIMIT, parse_json, read_config_text
from engine.config.validation import Invalid
from engine.errors import ConfigError
from engine.mcp.entries import PluginEntry, check_server_name, plugin_entry

_KNOWN_KEYS = ("command", "args", "env", "cwd", "url", "headers")


def read_mcp_json(path: Path) -> tuple[dict[str, PluginEntry], list[str]]:
    """The usable servers of ``path`` and a notice for each problem."""
    try:
        data = parse_json(path, read_config_text(path, CONFIG_FILE_LIMIT))
    except ConfigError as error:  # unreadable, refused (too large, not a regular file) or not valid JSON
        return {}, [f"{error}; its MCP servers are not used"]
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return {}, [f"{path}: no 'mcpServers' object; nothing to use"] if servers is not None else []
    entries: dict[str, PluginEntry] = {}
    notices: list[str] = []
    for name, raw in servers.items():
        entry, problem = _entry(str(name), raw)
        if entry is not None:
            entries[str(name)] = entry
        else:
            notices.append(f"{path}: MCP server {name!r} skipped: {problem}")
    return entries, notices


def _entry(name: str, raw: Any) -> tuple[PluginEntry | None, str]:
    try:
        check_server_name(name)
    except ValueError as exc:
        return None, str(exc)
    if not isinstance(raw, dict):
        return None, "its entry is not an object"
    kind = (
        raw.get("type") or raw.get("transport") or ("stdio" if "command" in raw else "http" if "url" in raw else None)
    )
    if not isinstance(kind, str):
        return None, "it has neither a 'command' nor a 'url'"
    values = {key: raw[key] for key in _KNOWN_KEYS if key in raw}
    values["transport"] = "http" if kind.lower() == "streamable-http" else kind
    try:
        return plugin_entry(values), ""
    except Invalid as exc:
        kind_key = "transport" if "type" not in raw and "transport" in raw else "type"
        return None, _short(exc, kind_key)


def _short(problem: Invalid, kind_key: str) -> str:
    """The problem, in the file's own words: hive's ``transport`` is ``.mcp.json``'s ``type``."""
    loc = [kind_key if index == 0 and part == "transport" else str(part) for index, part in enumerate(problem.loc)]
    where = ".".join(loc)
    message = problem.problem
    if kind_key == "type":
        message = message.replace("transport", "type")
    return f"{where}: {message}" if where else message

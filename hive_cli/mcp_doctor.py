"""``hive mcp doctor``: connect each server and say what worked, how long it took, and what to fix if not."""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

from msgspec import Struct

from engine.mcp.approvals import shown_command, shown_details
from engine.mcp.config import McpServers, ServerConfig
from engine.mcp.errors import without_values
from engine.mcp.manager import McpManager, ServerStatus
from engine.mcp.roots import Root
from engine.mcp.stdio import server_program
from hive_cli.mcp_inspect import configured, connected, offered_roots_for, state_text
from hive_cli.terminal_text import echo, echo_json

STDERR_LINES = 10
_LOG_MARK = "--- hive connecting to "


class Diagnosis(Struct, frozen=True):
    """One server's check."""

    config: ServerConfig
    status: ServerStatus
    seconds: float
    healthy: bool
    causes: tuple[str, ...]
    stderr: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Connected, listed its tools and answers."""
        return self.status.state == "ready" and self.healthy

    def as_json(self) -> dict[str, Any]:
        """For ``--format json``."""
        s = self.status
        return {
            "name": s.name,
            "transport": s.transport,
            "source": str(s.source),
            "handshake": "ok" if s.state == "ready" else state_text(s),
            "healthy": self.healthy,
            "protocol_version": s.protocol_version,
            "seconds": round(self.seconds, 3),
            "tools": len(s.tools),
            "resources": s.resources,
            "prompts": len(s.prompts),
            "error": s.error,
            "likely_causes": list(self.causes),
            "stderr_tail": list(self.stderr),
            "log": None if s.log_path is None else str(s.log_path),
            "log_problem": s.log_problem,
        }


def doctor(cwd: Path, output_format: str) -> int:
    """Check every enabled server; exit status 1 when any failed."""
    servers = configured(cwd)
    enabled = servers.enabled
    if not enabled:
        disabled = len(servers.servers)
        note = f" ({disabled} disabled)" if disabled else " (hive mcp add NAME -- COMMAND ARGS... adds one)"
        for notice in servers.notices:
            echo(f"hive: {notice}", err=True)
        echo(f"No MCP servers to check{note}.", err=True)
        return 0
    found = asyncio.run(_diagnose(servers, offered_roots_for(cwd)))
    if output_format == "json":
        echo_json(json.dumps({"servers": [d.as_json() for d in found]}, indent=2, ensure_ascii=False))
    else:
        for notice in servers.notices:
            echo(f"notice: {notice}")
        for diagnosis in found:
            for line in report_lines(diagnosis):
                echo(line)
        failed = sum(not d.ok for d in found)
        echo(f"{len(found) - failed} of {len(found)} server(s) ok")
    return 1 if any(not d.ok for d in found) else 0


async def _diagnose(servers: McpServers, roots: tuple[Root, ...]) -> list[Diagnosis]:
    started = time.monotonic()
    settled: dict[str, float] = {}

    def timed(manager: McpManager) -> None:
        for status in manager.status():
            if status.state in ("ready", "failed") and status.name not in settled:
                settled[status.name] = time.monotonic() - started

    async with connected(servers, timed, roots=roots) as manager:
        found = []
        for status in manager.status():
            if status.state is None:
                continue
            config = next(s for s in servers.servers if s.name == status.name)
            healthy = await manager.is_healthy(status.name)
            seconds = status.connect_s if status.connect_s is not None else settled.get(status.name, 0.0)
            tail = (
                tuple(without_values(line, config) for line in stderr_tail(status.log_path)) if status.log_path else ()
            )
            causes = () if status.state == "ready" and healthy else likely_causes(config, status.error or "", tail)
            found.append(Diagnosis(config, status, seconds, healthy, causes, tail))
        return found


def report_lines(d: Diagnosis) -> list[str]:
    """One server's report as text."""
    s = d.status
    lines = [f"{s.name} ({s.transport}, {s.source})"]
    if s.state == "ready":
        counts = f"{len(s.tools)} tools, {s.resources} resources, {len(s.prompts)} prompts"
        lines.append(f"  handshake: ok in {d.seconds:.2f} s, protocol {s.protocol_version}, {counts}")
        lines.append(f"  health: {'ok' if d.healthy else 'no answer'}")
    elif s.state == "awaiting_approval":
        lines.append(f"  handshake: not started, awaiting approval: {s.error}")
    else:
        lines.append(f"  handshake: failed after {d.seconds:.2f} s: {s.error}")
    if d.config.awaiting_approval:
        lines.append(f"  runs: {shown_command(d.config)}")
        lines.extend(f"  {detail}" for detail in shown_details(d.config))
    lines.extend(f"  likely cause: {cause}" for cause in d.causes)
    if s.log_problem:
        lines.append(f"  log: {s.log_problem}")
    if d.stderr and not d.ok:
        lines.append(f"  stderr (last {len(d.stderr)} lines, {s.log_path}):")
        lines.extend(f"    {line}" for line in d.stderr)
    return lines


def stderr_tail(log: Path, count: int = STDERR_LINES) -> tuple[str, ...]:
    """The last lines the server wrote to stderr during the latest connection attempt."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ()
    latest = text.rsplit(_LOG_MARK, 1)[-1].split("\n", 1)[-1] if _LOG_MARK in text else text
    return tuple(line for line in latest.splitlines() if line.strip())[-count:]


def likely_causes(config: ServerConfig, error: str, tail: tuple[str, ...]) -> tuple[str, ...]:
    """What probably went wrong, from the error, the configuration and what the server printed."""
    causes: list[str] = []
    if config.awaiting_approval:
        return ("not approved: the project's own file defines it; see what it runs with: hive mcp approve",)
    if config.problem:
        causes.append("a variable in its entry is not set: export it, or give a default as ${VAR:-default}")
    if config.transport == "stdio":
        causes.extend(_stdio_causes(config, error, tail))
    else:
        causes.extend(_remote_causes(config, error))
    if "did not connect within" in error:
        causes.append(
            f"timeout: it did not finish the handshake within {config.startup_timeout:g} s "
            "(it may be waiting for input, downloading, or need a larger startup_timeout)"
        )
    return tuple(causes)


def _stdio_causes(config: ServerConfig, error: str, tail: tuple[str, ...]) -> list[str]:
    lookup = server_program(config) if config.command else None
    if "no such program" in error or (lookup is not None and lookup.program is None):
        shown = config.as_written.command or ""
        skipped = "; ".join(skip.describe() for skip in lookup.skipped) if lookup else ""
        if skipped:
            return [f"command not found: {shown!r} is only where sandboxed commands could have put it: {skipped}"]
        return [f"command not found: {shown!r} is not installed or not on PATH (give its full path)"]
    causes = []
    if "exited during startup" in error:
        causes.append("the server exited at start: see its stderr (a wrong argument, or an env var it needs:")
        causes[-1] += " the server gets only HOME, PATH, SHELL, TERM, USER, LOGNAME and its 'env')"
    if any(re.search(r"\b(401|403|unauthori[sz]ed|forbidden|api[_ ]?key|token)\b", line, re.I) for line in tail):
        causes.append("auth: the server asks for credentials; pass them with --env KEY=VALUE")
    return causes


def _remote_causes(config: ServerConfig, error: str) -> list[str]:
    url = config.url or ""
    if not re.match(r"^https?://[^/\s]+", url):
        shown = config.as_written.url or ""
        return [f"bad URL: {shown!r} must start with http:// or https:// and name a host"]
    status = http_status(config)
    if status is not None:
        error = f"{error} (HTTP {status})"
    if re.search(r"\b401\b|unauthori[sz]ed", error, re.I):
        if any(name.lower() == "authorization" for name in config.as_written.headers):
            return ["auth 401: the server wants credentials; check the token in its Authorization header"]
        return [f"auth 401: the server wants credentials; log in with: hive mcp login {config.name}"]
    if re.search(r"\b403\b|forbidden", error, re.I):
        return ["auth 403: the credentials were refused"]
    if re.search(r"\b404\b|not found", error, re.I):
        path = "/mcp" if config.transport == "http" else "/sse"
        return [f"wrong path: {config.transport} servers usually answer at {path}"]
    if "cannot reach" in error and status is None:
        return ["nothing answers at that address: is the server running, and is the port right?"]
    return []


def http_status(config: ServerConfig) -> int | None:
    """The HTTP status the server's URL answers a plain MCP ``initialize`` POST with (None: no answer).

    The SDK reports an HTTP error on Streamable HTTP only as a JSON-RPC error, so the doctor asks once itself.
    """
    import httpx2 as httpx

    body = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}
    headers = {"Accept": "application/json, text/event-stream", **dict(config.headers)}
    try:
        with httpx.Client(timeout=3.0) as client:
            if config.transport == "sse":
                with client.stream("GET", config.url or "", headers=headers) as response:
                    return response.status_code
            return client.post(config.url or "", json=body, headers=headers).status_code
    except httpx.HTTPError:
        return None

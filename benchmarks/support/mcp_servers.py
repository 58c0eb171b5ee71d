"""The MCP servers the benchmarks run (installed by `make mcp-servers`), and hive's REPL launched in a pty."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "tests" / "mcp_servers" / "node_modules" / ".bin"
EVERYTHING = BIN / "mcp-server-everything"
FILESYSTEM = BIN / "mcp-server-filesystem"
PY_SERVER = ROOT / "tests" / "support" / "mcp_server.py"


def three_servers_yaml(allowed_dir: Path) -> str:
    """A plugins.yaml with three stdio servers: everything, filesystem and the test suite's Python server."""
    return (
        "plugins:\n"
        f"  everything: {{command: {EVERYTHING}, args: [stdio]}}\n"
        f"  fs: {{command: {FILESYSTEM}, args: ['{allowed_dir}']}}\n"
        f"  py: {{command: {sys.executable}, args: ['{PY_SERVER}']}}\n"
    )


def time_to_prompt(args: list[str], env: dict[str, str], word: str = "hello-hive") -> tuple[float, float]:
    """Seconds from launching ``python ARGS`` in a pty to its prompt, and to a word typed at once being shown."""
    started = time.perf_counter()
    child = pexpect.spawn(sys.executable, args, env=env, encoding="utf-8", dimensions=(30, 100), timeout=30)
    child.send(word)
    child.expect("›")
    prompt_at = time.perf_counter() - started
    child.expect(word)
    echo_at = time.perf_counter() - started
    child.sendcontrol("c")
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    return prompt_at, echo_at

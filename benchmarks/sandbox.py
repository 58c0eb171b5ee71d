"""What the sandbox costs per command: `true` through execute_command, sandboxed and not, alternately, in one process.

The project is this repository (a real tree: its walk is cached after the first command, then
re-validated with one stat per folder on every command). The first sandboxed command also pays
the availability probe and the full walk; it is shown apart. Goal: at most 20 ms over unsandboxed.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.sandbox.bubblewrap import BubblewrapSandbox
from engine.sandbox.options import SandboxOptions
from engine.sandbox.probe import bubblewrap_availability
from engine.tools.base import ToolContext
from engine.tools.shell import ExecuteCommandTool

REPEATS = 30
PROJECT = Path(__file__).resolve().parent.parent


async def once(tool: ExecuteCommandTool, ctx: ToolContext) -> float:
    started = time.perf_counter()
    result = await tool.run({"command": "true"}, ctx)
    elapsed = time.perf_counter() - started
    if result.success is not True:
        raise SystemExit(f"`true` failed: {result.output}")
    return elapsed


async def paired_runs(sandbox: BubblewrapSandbox, ctx: ToolContext) -> tuple[float, list[float], list[float]]:
    """In one event loop, as in a session: the first sandboxed command, then the pairs."""
    plain, boxed = ExecuteCommandTool(), ExecuteCommandTool(sandbox=sandbox)
    first = await once(boxed, ctx)
    await once(plain, ctx)
    off, on = [], []
    for repeat in range(REPEATS):
        # alternate which goes first, so drift within a pair does not always favour one side
        pair = (False, True) if repeat % 2 == 0 else (True, False)
        for sandboxed in pair:
            (on if sandboxed else off).append(await once(boxed if sandboxed else plain, ctx))
    return first, off, on


def main() -> None:
    availability = bubblewrap_availability(network=False)
    if not availability.available:
        raise SystemExit(f"bubblewrap cannot start here: {availability.reason}")
    sandbox = BubblewrapSandbox(SandboxOptions())
    with tempfile.TemporaryDirectory() as data:
        first, off, on = asyncio.run(paired_runs(sandbox, ToolContext(cwd=PROJECT, data_dir=Path(data))))
    profile = sandbox.profile(PROJECT, {})
    started = time.perf_counter()
    for _ in range(REPEATS):
        sandbox.profile(PROJECT, {})
    per_profile = (time.perf_counter() - started) / REPEATS
    difference = (statistics.median(on) - statistics.median(off)) * 1000
    print(f"sandbox cost per command, median of {REPEATS} paired runs of `true` (bwrap {availability.binary})")
    print(f"  project {PROJECT}: {len(profile.mounts)} mounts, walk truncated: {profile.truncated}")
    print(f"  unsandboxed                {statistics.median(off) * 1000:7.1f} ms")
    print(f"  sandboxed                  {statistics.median(on) * 1000:7.1f} ms")
    print(
        f"  difference                 {difference:+7.1f} ms   (of which the cached profile {per_profile * 1000:.1f} ms)"
    )
    print(f"  first sandboxed command    {first * 1000:7.1f} ms   (probe and full walk)")
    print(f"goal <= 20 ms over unsandboxed: {'met' if difference <= 20 else 'NOT met'}")


if __name__ == "__main__":
    main()

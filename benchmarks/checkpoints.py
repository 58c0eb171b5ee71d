"""What checkpoints cost a shell command: on hive's own repository, and on a large git repository.

Part 1 (hive's own repository) times the snapshot and the scan directly: the first snapshot, a new
session's first snapshot, and a later snapshot + scan pair.

Part 2 builds a repository of 20,000 files and about 500 MB with a short git history under /var/tmp
(removed at the end) and runs real ``execute_command`` calls through the checkpoint wrapper with the
real sandbox, as a session does, against the same calls with checkpoints off. Printed: the first
command's overhead, a new session's first command's, the later commands' (median) as a ratio to
checkpoints off, the store's size after them as a share of the tree, and undo's time.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.support.big_repo import big_repository, tree_bytes
from engine.checkpoints.recorder import TurnRecorder
from engine.checkpoints.store import CheckpointStore
from engine.checkpoints.tree import TreeIndex
from engine.checkpoints.undo import pending, revert, rewind
from engine.checkpoints.wrapper import CheckpointToolset
from engine.events import ToolCall, TurnRecord
from engine.sandbox.options import SandboxOptions
from engine.sandbox.status import SandboxStatus, check_sandbox, sandbox_for
from engine.tools.base import ToolContext, Toolset
from engine.tools.builtin import builtin_tools
from engine.tools.registry import ToolRegistry

REPEATS = 20
PROJECT = str(Path(__file__).resolve().parent.parent)
MAX_FILE_BYTES = 10_000_000


def own_repository() -> None:
    """Part 1: the snapshot and scan of hive's own repository, timed directly."""
    with tempfile.TemporaryDirectory() as folder:
        index = TreeIndex(CheckpointStore(Path(folder)), MAX_FILE_BYTES)
        started = time.perf_counter()
        first = index.snapshot([PROJECT])
        first_s = time.perf_counter() - started
        started = time.perf_counter()
        TreeIndex(index.store, MAX_FILE_BYTES).snapshot([PROJECT])
        fresh_s = time.perf_counter() - started
        pairs = []
        for _ in range(REPEATS):
            started = time.perf_counter()
            index.snapshot([PROJECT])
            index.scan([PROJECT])
            pairs.append(time.perf_counter() - started)
    print(f"checkpoints: {len(first.keys)} entries under {PROJECT}")
    print(f"  first snapshot: {first_s * 1000:.1f} ms")
    print(f"  first snapshot of a new session: {fresh_s * 1000:.1f} ms")
    print(f"  later snapshot + scan per command, median of {REPEATS}: {statistics.median(pairs) * 1000:.1f} ms")


class Session:
    """Shell calls in ``root`` through the checkpoint wrapper (or without it), as a session makes them."""

    def __init__(self, root: Path, store: CheckpointStore | None, sandbox: SandboxStatus) -> None:
        tools: Toolset = ToolRegistry(builtin_tools(sandbox=sandbox_for(sandbox)))
        self.recorder = TurnRecorder(store, root, MAX_FILE_BYTES) if store is not None else None
        if store is not None and self.recorder is not None:
            tools = CheckpointToolset(tools, self.recorder, TreeIndex(store, MAX_FILE_BYTES), sandbox)
        self.tools = tools
        self.ctx = ToolContext(cwd=root, data_dir=root / ".hive")
        self.loop = asyncio.Runner()  # one event loop for the session, as hive's

    def turn(self, command: str) -> float:
        """One turn of one shell command; the seconds the call took."""
        started = time.perf_counter()
        result = self.loop.run(self._call(command))
        took = time.perf_counter() - started
        if not result:
            raise SystemExit(f"the benchmark's command failed: {command}")
        if self.recorder is not None:
            self.loop.run(self.recorder(TurnRecord(index=0, text="")))
            self.recorder.close_turn()
        return took

    def close(self) -> None:
        """End the session's event loop."""
        self.loop.close()

    async def _call(self, command: str) -> Any:
        result = await self.tools.call(
            ToolCall(id="c", name="execute_command", arguments={"command": command}), self.ctx
        )
        return result.success


def edit(number: int) -> str:
    """A command that edits one tracked file."""
    return f"printf '{number}\\n' >> pkg{number % 50}/mod{number % 400}/file{number}.py"


def large_repository() -> None:
    """Part 2: real shell calls in a large git repository, with checkpoints and without."""
    sandbox = check_sandbox(SandboxOptions(mode="workspace-write"))
    print(f"large repository: building 20,000 files, ~500 MB, 3 commits under /var/tmp ({sandbox.description})")
    with big_repository() as root, tempfile.TemporaryDirectory() as folder:
        size = tree_bytes(root)
        started = time.perf_counter()
        subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, check=True)
        status_s = time.perf_counter() - started
        off = Session(root, None, sandbox)
        off.turn("true")
        first_off_s = off.turn(edit(3))
        store = CheckpointStore(Path(folder))
        first = Session(root, store, sandbox)
        first_s = first.turn(edit(1))
        off_times, later = [], []
        for n in range(REPEATS):  # paired, one after the other: the machine's drift hits both alike
            off_times.append(off.turn(edit(100 + n)))
            later.append(first.turn(edit(200 + n)))
        fresh = Session(root, store, sandbox)
        fresh_s = fresh.turn(edit(2))
        for session in (off, first, fresh):
            session.close()
        kept = sum(path.stat().st_size for path in store.objects.rglob("*") if path.is_file())
        turns = pending(store)
        started = time.perf_counter()
        revert(turns[0], store)
        undo_s = time.perf_counter() - started
        started = time.perf_counter()
        rewind(store, pending(store)[-1])
        rewind_s = time.perf_counter() - started
    off_s = statistics.median([*off_times, first_off_s])
    later_s = statistics.median(later)
    ratio = statistics.median(on / base for on, base in zip(later, off_times, strict=True))
    print(
        f"  tree: {size / 1e6:.0f} MB; a shell command with checkpoints off: {off_s * 1000:.1f} ms (median of {REPEATS})"
    )
    print(f"  for scale: git status there took {status_s * 1000:.0f} ms; load average {os.getloadavg()[0]:.1f}")
    print(
        f"  first command of the first session: +{(first_s - off_s) * 1000:.0f} ms over checkpoints off (goal <= 500 ms)"
    )
    print(f"  first command of a later session: +{(fresh_s - off_s) * 1000:.0f} ms over checkpoints off")
    print(
        f"  later commands, median of {REPEATS}: +{(later_s - off_s) * 1000:.1f} ms, {ratio:.2f}x checkpoints off (paired)"
        " (goal <= +20 ms, <= 2x)"
    )
    print(f"  store after {REPEATS + 2} commands: {kept / 1e6:.2f} MB, {kept / size:.2%} of the tree (goal <= 2%)")
    print(
        f"  undo of the newest turn: {undo_s * 1000:.1f} ms; undo of the {len(turns) - 1} others: {rewind_s * 1000:.1f} ms"
    )


def main() -> None:
    own_repository()
    large_repository()


if __name__ == "__main__":
    main()

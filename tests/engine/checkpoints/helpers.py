"""A workspace with the real built-in tools behind the checkpoint wrapper, and a picture of a tree."""

from __future__ import annotations

import asyncio
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.checkpoints.recorder import TurnRecorder
from engine.checkpoints.store import CheckpointStore
from engine.checkpoints.tree import TreeIndex
from engine.checkpoints.wrapper import CheckpointToolset
from engine.events import ToolCall, TurnRecord
from engine.sandbox.options import SandboxOptions
from engine.sandbox.status import SandboxStatus, check_sandbox, sandbox_for
from engine.tools.base import ToolContext, ToolResult
from engine.tools.builtin import builtin_tools
from engine.tools.registry import ToolRegistry


@dataclass
class Workspace:
    """A project folder whose tool calls are checkpointed into ``store``."""

    root: Path
    store: CheckpointStore
    sandbox: SandboxStatus
    max_file_bytes: int = 1_000_000
    rounds: int = field(default=0)

    def __post_init__(self) -> None:
        self.recorder = TurnRecorder(self.store, self.root, self.max_file_bytes)
        self.index = TreeIndex(self.store, self.max_file_bytes)
        tools = ToolRegistry(builtin_tools(sandbox=sandbox_for(self.sandbox)))
        self.toolset = CheckpointToolset(tools, self.recorder, self.index, self.sandbox)
        self.ctx = ToolContext(cwd=self.root, data_dir=self.root / ".hive")

    def call(self, name: str, **arguments: Any) -> ToolResult:
        """Run one tool call through the wrapper."""
        return asyncio.run(self.toolset.call(ToolCall(id="c", name=name, arguments=arguments), self.ctx))

    def end_round(self, *, first: bool, last: bool = True) -> None:
        """End a model round (``first``: the first round of a new turn; ``last``: the run ends with it)."""
        self.rounds = 0 if first else self.rounds + 1
        asyncio.run(self.recorder(TurnRecord(index=self.rounds, text="")))
        if last:  # as the end of a run of the root agent does in a session
            self.recorder.close_turn()


def workspace(tmp_path: Path, sandbox: str = "workspace-write") -> Workspace:
    """A fresh project under ``tmp_path`` with its own store."""
    root = (tmp_path / "project").resolve()
    root.mkdir(parents=True)
    status = check_sandbox(SandboxOptions(mode=sandbox))  # type: ignore[arg-type]
    return Workspace(root, CheckpointStore(tmp_path / "store"), status)


def picture(root: Path) -> dict[str, tuple[str, int, bytes]]:
    """Every path under ``root`` (but ``.hive``) with its type, mode and bytes (a link: its target)."""
    seen: dict[str, tuple[str, int, bytes]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".hive"]
        for name in dirs + files:
            path = Path(folder) / name
            st = path.lstat()
            rel = path.relative_to(root).as_posix()
            if stat.S_ISLNK(st.st_mode):
                seen[rel] = ("link", 0, os.readlink(path).encode())
            elif stat.S_ISDIR(st.st_mode):
                seen[rel] = ("dir", stat.S_IMODE(st.st_mode), b"")
            else:
                seen[rel] = ("file", stat.S_IMODE(st.st_mode), path.read_bytes())
    return seen


def texts(root: Path) -> dict[str, str]:
    """The files under ``root`` (but ``.hive``) and their text, by path relative to ``root``."""
    return {path: data.decode() for path, (kind, _, data) in picture(root).items() if kind == "file"}

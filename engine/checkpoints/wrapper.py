"""The checkpoint wrapper, in the policy's approved-call slot: it sees exactly the calls that will run.

* ``write_file`` and ``edit_file``: the target's current state is kept before the tool runs.
* ``execute_command``: what the command may write is known from the sandbox. In ``workspace-write``
  those are the writable roots (the project and ``sandbox.writable_roots``; ``/tmp`` is private and
  vanishes with the command), so the roots are snapshotted before it runs (:mod:`.tree`) and diffed
  after it: a change outside them is impossible rather than unrecorded. In ``read-only`` nothing on
  disk can change, so nothing is kept. With the sandbox off (or a command let out of it once) the
  project is scanned the same way, and the files the shell parser sees the command write outside it
  are kept one by one; a write there that the parser cannot see is not recorded.
* Other tools (MCP servers, agents) are not checkpointed: what they change is their own business.

Other hives may be working in the project at the same time (:mod:`.open_turns`): a command's scan
keeps for this turn only the changed paths no other live turn has declared, and while another
hive's command was running too, the changes neither can tell apart are left to no turn (said in the
result). The pre-scan is saved as pending before the command runs, so a kill mid-command stays undoable.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from engine.checkpoints import open_turns
from engine.checkpoints.recorder import TurnRecorder
from engine.checkpoints.settle import saved_since, settle
from engine.checkpoints.states import undo_notice
from engine.checkpoints.tree import Scan, TreeIndex
from engine.events import ToolCall
from engine.paths import project_root
from engine.policy.subjects import SHELL_TOOL, subjects_for
from engine.sandbox.status import SandboxStatus
from engine.tools.base import ToolContext, ToolResult, Toolset
from engine.tools.output import end_line
from engine.tools.paths import display_path, resolve_path, working_directory
from engine.tools.registry import WrapperToolset

FILE_TOOLS = frozenset({"write_file", "edit_file"})


class CheckpointToolset(WrapperToolset):
    """Keeps the before-state of whatever an approved call may change, in the turn's checkpoint."""

    def __init__(self, inner: Toolset, recorder: TurnRecorder, index: TreeIndex, sandbox: SandboxStatus) -> None:
        super().__init__(inner)
        self.recorder = recorder
        self.index = index
        self.sandbox = sandbox
        self._lock = asyncio.Lock()

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        if call.name in FILE_TOOLS:
            return await self._file_call(call, ctx)
        if call.name == SHELL_TOOL:
            return await self._shell_call(call, ctx)
        return await self.inner.call(call, ctx)

    def caveats(self, call: ToolCall, ctx: ToolContext) -> tuple[str, ...]:
        """That a ``write_file``/``edit_file`` call's change cannot be undone, when its file is over the limit."""
        path = _file_target(call, ctx) if call.name in FILE_TOOLS else None
        notice = self._undo_notice(path, ctx) if path is not None else None
        return (*((notice,) if notice else ()), *super().caveats(call, ctx))

    async def _file_call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        path = _file_target(call, ctx)
        if path is None:  # the tool refuses it with its own message
            return await self.inner.call(call, ctx)
        async with self._lock:
            notice = await asyncio.to_thread(self._undo_notice, path, ctx)
            if notice:
                ctx.progress(notice)
            await asyncio.to_thread(self.recorder.capture, path)
            self.recorder.note(f"{call.name} {call.arguments.get('path')}")
            result = await self.inner.call(call, ctx)
        if notice and result.success:
            return ToolResult(end_line(result.output) + f"[Checkpoint: {notice}.]", result.success, result.shown_files)
        return result

    def _undo_notice(self, path: Path, ctx: ToolContext) -> str | None:
        return undo_notice(path, display_path(path, ctx), self.recorder.max_file_bytes)

    async def _shell_call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        confined = self.sandbox.confined and not ctx.outside_sandbox
        if confined and self.sandbox.mode == "read-only":
            return await self.inner.call(call, ctx)
        roots = self._roots(ctx, confined)
        async with self._lock:
            if not confined:
                outside = [p for p in _parser_writes(call, ctx) if not _inside_any(str(p), roots)]
                for path in outside:
                    await asyncio.to_thread(self.recorder.capture, path)
            before = await asyncio.to_thread(self._pre_scan, roots)
            result = await self.inner.call(call, ctx)
            after = await asyncio.to_thread(self.index.scan, roots)
            changed, unrecorded, shared = await asyncio.to_thread(self._record_changes, before, after)
        if changed:
            self.recorder.note(f"{SHELL_TOOL} {_short(call)}")
        notes = []
        if shared:
            notes.append(
                f"[Checkpoint: {shared} changed file(s) may be another hive's (one worked in this project at the "
                "same time); they are not part of this turn's undo.]"
            )
        if before.truncated or after.truncated:
            notes.append("[Checkpoint: the project is too large to scan whole; some changes may not be undoable.]")
        if unrecorded:
            notes.append(
                f"[Checkpoint: {unrecorded} changed file(s) had no snapshot (too large, or too much to keep at "
                "once); undo will refuse for them.]"
            )
        if notes:
            return ToolResult(end_line(result.output) + "\n".join(notes), result.success, result.shown_files)
        return result

    def _roots(self, ctx: ToolContext, confined: bool) -> tuple[str, ...]:
        project = os.path.realpath(project_root(working_directory(ctx)))
        extra = self.sandbox.options.writable_roots if confined and self.sandbox.mode == "workspace-write" else ()
        roots = dict.fromkeys([project, *(os.path.realpath(root) for root in extra)])
        return tuple(root for root in roots if not any(root != other and _inside(root, other) for other in roots))

    def _pre_scan(self, roots: tuple[str, ...]) -> Scan:
        """Settle dead hives' records, snapshot the roots, and save the snapshot as this turn's pending pre-scan."""
        settle(self.recorder.store)
        before = self.index.snapshot(roots)
        self.recorder.command_starts(self.index.pending_scan(roots, before))
        return before

    def _record_changes(self, before: Scan, after: Scan) -> tuple[int, int, int]:
        """Record the before-state of every changed path that is this turn's alone.

        Counts the paths recorded, those of them with no snapshot, and those left to no turn because
        another hive's command ran at the same time. Read after the scan: another hive declares a path
        before writing it, so every write the scan saw by another turn is declared by now.
        """
        scanned = time.time()
        changed = self.index.changes(before, after)
        others = [t for t in open_turns.recorded_turns(self.recorder.store) if t.turn != self._turn_id()]
        running = any(0 < t.command_since < scanned for t in others)  # its changes are declared when it ends
        claimed = {path for t in others if open_turns.is_live(self.recorder.store, t.turn) for path in t.touched}
        claimed |= saved_since(
            self.recorder.store, self._command_since(), but=self.recorder.own_turns
        )  # runs ended since
        mine = [path for path in changed if path not in claimed]
        shared = mine if running else []
        if shared:
            self.recorder.declare(shared)  # the other command's scan then leaves them out too
            mine = []
        states = self.index.before_states(mine, before)
        self.recorder.command_ended(states)
        unrecorded = sum(state is not None and state.kind == "unrecorded" for state in states.values())
        return len(mine), unrecorded, len(shared)

    def _command_since(self) -> float:
        turn = self.recorder.turn
        return turn.record.command_since if turn is not None else 0.0

    def _turn_id(self) -> str:
        turn = self.recorder.turn
        return turn.turn_id if turn is not None else ""


def _file_target(call: ToolCall, ctx: ToolContext) -> Path | None:
    """The file a ``write_file``/``edit_file`` call names, resolved; None when it cannot be."""
    raw = call.arguments.get("path")
    try:
        return resolve_path(raw, ctx) if isinstance(raw, str) else None
    except ValueError:
        return None


def _parser_writes(call: ToolCall, ctx: ToolContext) -> list[Path]:
    """The files the shell parser sees the command edit (redirections, ``cp``/``mv`` targets, ``sed -i``...)."""
    cwd = working_directory(ctx)
    paths = []
    for subject in subjects_for(call, ctx).subjects:
        if subject.category == "edit" and isinstance(subject.value, str) and subject.value != ".":
            paths.append(Path(subject.value) if os.path.isabs(subject.value) else cwd / subject.value)
    return paths


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(os.path.join(root, ""))


def _inside_any(path: str, roots: tuple[str, ...]) -> bool:
    return any(_inside(path, root) for root in roots)


def _short(call: ToolCall) -> str:
    command = str(call.arguments.get("command", ""))
    return command if len(command) <= 60 else command[:59] + "…"

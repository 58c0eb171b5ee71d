"""The project must still be there: before each tool call, the project folder is checked to be the one the
session started in (the same device and inode), and the run stops when it is not.

Without it, a project folder removed while hive runs is made again, piece by piece, by the next
``write_file`` (which creates missing parent folders), and the run reports success. The check is a
wrapper in the approved-call slot, so it runs just before each call, after any approval: a call that
finds the folder gone (or replaced by another folder of the same name) is refused without running,
and the run stops after that round with :class:`ProjectFolderGone` (exit status 1, a run-time failure:
running again cannot help until the folder is back).
"""

from __future__ import annotations

import os
import weakref
from pathlib import Path

from engine.capabilities import BuildContext, Capability, SessionView
from engine.errors import RunError
from engine.events import ToolCall, TurnRecord
from engine.paths import project_root
from engine.run.loop import TurnObserver
from engine.tools.base import ToolContext, ToolResult, Toolset
from engine.tools.compose import ToolsetWrapper
from engine.tools.registry import WrapperToolset


class ProjectFolderGone(RunError):
    """The project folder (or the working directory in it) was removed or replaced while the session ran."""

    def __init__(self, folder: Path) -> None:
        super().__init__(f"the project folder {folder} was removed or replaced during the run; stopping")
        self.folder = folder


class HeldFolder:
    """A folder as it was when the session started, held open so its inode cannot be reused by a new folder."""

    def __init__(self, path: Path, descriptor: int) -> None:
        self.path = path
        self._descriptor = descriptor
        self._closed = weakref.finalize(self, os.close, descriptor)

    def still_there(self) -> bool:
        """Whether ``path`` is still that folder (not removed, not replaced by another one); True once let go."""
        if not self._closed.alive:
            return True
        try:
            now, held = os.stat(self.path), os.fstat(self._descriptor)
        except OSError:
            return False
        return (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)

    def close(self) -> None:
        """Let go of the folder."""
        self._closed()


def held_folders(cwd: Path) -> tuple[HeldFolder, ...]:
    """The project root of ``cwd`` and ``cwd`` itself (when it is another folder), held as they are now."""
    held = []
    for folder in dict.fromkeys((project_root(cwd), cwd.resolve())):
        try:
            descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            continue  # a folder missing already at the start has nothing to compare with
        held.append(HeldFolder(folder, descriptor))
    return tuple(held)


class ProjectGuard(Capability):
    """Refuses every tool call once the project folder is gone, and stops the run after that round.

    A sub-agent keeps the same guard: its calls are checked against the same folders, and the parent
    stops after the round in which the sub-agent ran.
    """

    def __init__(self, cwd: Path) -> None:
        self.folders = held_folders(cwd)
        self.gone: Path | None = None
        """The first folder found gone, once a call found it."""

    def check(self) -> Path | None:
        """The folder that is gone or replaced (None while every one is still there); remembered once found."""
        if self.gone is None:
            self.gone = next((f.path for f in self.folders if not f.still_there()), None)
        return self.gone

    def approved_call_wrappers(self, context: BuildContext) -> tuple[ToolsetWrapper, ...]:
        return (lambda inner: GuardedProject(inner, self),)

    def turn_observers(self) -> tuple[TurnObserver, ...]:
        return (self.stop_if_gone,)

    def stop_if_gone(self, record: TurnRecord) -> None:
        """After a round: raise :class:`ProjectFolderGone` when a call of it found the folder gone."""
        if self.gone is not None:
            raise ProjectFolderGone(self.gone)

    def for_child(self) -> Capability | None:
        return self

    async def stop(self, session: SessionView) -> None:
        for folder in self.folders:
            folder.close()


class GuardedProject(WrapperToolset):
    """``inner``, with each call refused (not run) once the project folder is gone."""

    def __init__(self, inner: Toolset, guard: ProjectGuard) -> None:
        super().__init__(inner)
        self.guard = guard

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        gone = self.guard.check()
        if gone is not None:
            return ToolResult.error(f"Not run: {ProjectFolderGone(gone)}. Nothing was re-created.")
        return await self.inner.call(call, ctx)

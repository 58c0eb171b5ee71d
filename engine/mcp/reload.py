"""Hot reload: watch the MCP configuration files and apply a valid change to the running servers.

The folders are watched, not the files (editors replace a file by renaming a new one over it, and a
watch on the old file goes dead), each without recursion and filtered by file name. A change whose
files read the same as before is ignored; an invalid configuration is reported and the running
servers keep the one they have; a valid one restarts only the servers whose entry changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Callable
from pathlib import Path

from engine.config.files import CONFIG_FILE_LIMIT
from engine.errors import ConfigError
from engine.mcp.config import MCP_JSON, PLUGINS_NAMES, McpServers, load_servers
from engine.mcp.options import McpOptions
from engine.paths import project_dir, project_root, user_config_dir
from engine.private_files import private_dir
from engine.safe_read import UnsafeFile, read_bounded

Apply = Callable[[McpServers], None]
Report = Callable[[str | None], None]
"""Told the problem with a configuration that was not applied, or None once a valid one was."""


def server_files(cwd: Path) -> list[Path]:
    """The files that define servers (present or not): the project's and the user's lists."""
    files = [project_dir(cwd) / name for name in PLUGINS_NAMES]
    files.append(project_root(cwd) / MCP_JSON)
    files += [user_config_dir() / name for name in PLUGINS_NAMES]
    return files


def watched_files(cwd: Path) -> list[Path]:
    """Every file whose change can change the servers (present or not), the user's approvals and trust included."""
    from engine.mcp.approvals import approvals_file
    from engine.trust.store import trust_file

    return [*server_files(cwd), approvals_file(), trust_file()]


def files_hash(files: list[Path]) -> str:
    """One hash of the files' contents (a missing file counts as missing)."""
    digest = hashlib.sha256()
    for path in files:
        try:
            digest.update(read_bounded(path, limit=CONFIG_FILE_LIMIT))
        except UnsafeFile as refused:  # a FIFO or a huge file: its reader refuses it too
            digest.update(b"\0refused " + refused.reason.encode())
        except OSError:
            digest.update(b"\0missing")
        digest.update(b"\0" + str(path).encode())
    return digest.hexdigest()


class ConfigWatcher:
    """Watches ``cwd``'s MCP configuration until stopped."""

    def __init__(self, cwd: Path, options: McpOptions, apply: Apply, report: Report) -> None:
        self.cwd = cwd
        self.options = options
        self._apply = apply
        self._report = report
        self._files = watched_files(cwd)
        self._hash = files_hash(self._files)
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin watching in the background (folders that do not exist are not watched)."""
        self._stop = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._watch(), name="mcp:reload")

    async def stop(self) -> None:
        """Stop watching."""
        if self._stop is not None:
            self._stop.set()
        task, self._task = self._task, None
        if task is not None:
            await asyncio.wait([task], timeout=5)
            task.cancel()

    async def _watch(self) -> None:
        from watchfiles import awatch

        with contextlib.suppress(OSError):  # so that an approval given later, from another terminal, is seen
            private_dir(user_config_dir())
        folders = sorted({str(f.parent) for f in self._files if f.parent.is_dir()})
        names = {f.name for f in self._files}
        if not folders:
            return
        async for _changes in awatch(
            *folders,
            watch_filter=lambda _change, path: Path(path).name in names,
            debounce=400,
            step=50,
            stop_event=self._stop,
            recursive=False,
        ):
            self.check()

    def catch_up(self) -> None:
        """Apply what changed since the servers were read: a session can open long after its configuration was."""
        self._hash = ""
        self.check()

    def check(self) -> None:
        """Read the files again; apply them if they changed and are valid, report them if invalid."""
        current = files_hash(self._files)
        if current == self._hash:
            return
        self._hash = current
        try:
            servers = load_servers(self.cwd, self.options)
        except ConfigError as error:
            self._report(f"{error}\n(the MCP servers keep the configuration they had)")
            return
        self._report(None)
        self._apply(servers)

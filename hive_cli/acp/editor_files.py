"""The editor's files for hive's file tools: ``fs/read_text_file`` and ``fs/write_text_file``, where the editor offers them.

read_file and edit_file then see what the editor's buffer holds (unsaved changes included), and write_file
and edit_file have the editor write, so an open buffer follows. The tools judge the path first, as always
(:mod:`engine.tools.editor_files`); this only carries the text. The tools run in worker threads, the
connection on the event loop: each request is put on the loop and waited for.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, Protocol, TypeVar

from acp.schema import ClientCapabilities, ReadTextFileResponse, WriteTextFileResponse
from msgspec.structs import replace

from engine.config.loader import SessionConfig
from engine.tools.editor_files import EditorFileError

EDITOR_WAIT_S = 60.0
"""How long a file tool waits for the editor to read or write a file."""
T = TypeVar("T")


class FileClient(Protocol):
    """The connection's side of it: the editor's fs methods."""

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse: ...

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse | None: ...


class EditorFilesOverAcp:
    """:class:`engine.tools.editor_files.EditorFiles` through the editor's ``fs/*`` methods."""

    def __init__(self, client: FileClient, capabilities: ClientCapabilities, loop: asyncio.AbstractEventLoop) -> None:
        offered = capabilities.fs
        self.reads = bool(offered and offered.read_text_file)
        self.writes = bool(offered and offered.write_text_file)
        self.client = client
        self.loop = loop
        self._loop_thread = threading.get_ident()  # built on the loop (the agent's session/new or load)
        self.session_id = ""
        """Set once the session is open (the tools are built before it)."""

    def read_text(self, path: Path) -> str:
        """The text of ``path`` as the editor has it."""
        return self._wait(self.client.read_text_file(session_id=self.session_id, path=str(path))).content

    def write_text(self, path: Path, content: str) -> None:
        """Have the editor write ``content`` to ``path``."""
        self._wait(self.client.write_text_file(session_id=self.session_id, path=str(path), content=content))

    def _wait(self, request: Coroutine[Any, Any, T]) -> T:
        if threading.get_ident() == self._loop_thread:
            request.close()
            raise EditorFileError("asked from the event loop itself")  # waiting here would never end
        future = asyncio.run_coroutine_threadsafe(request, self.loop)
        try:
            return future.result(timeout=EDITOR_WAIT_S)
        except TimeoutError:
            future.cancel()
            raise EditorFileError(f"no answer within {EDITOR_WAIT_S:g} s") from None
        except Exception as error:
            raise EditorFileError(_said(error)) from None


def _said(error: Exception) -> str:
    data = getattr(error, "data", None)
    message = data.get("message") if isinstance(data, dict) else None
    text = str(message or error).splitlines()
    return text[0] if text and text[0] else type(error).__name__


def with_editor_files(config: SessionConfig, files: EditorFilesOverAcp) -> SessionConfig:
    """``config`` whose file tools go through the editor, when it offers to read or write files."""
    if not (files.reads or files.writes):
        return config
    return replace(config, file_options=replace(config.file_options, editor=files))

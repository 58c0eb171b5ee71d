"""The editor's side for ``hive acp`` tests: the ACP SDK's own client connection over the real process's stdio.

``EditorClient`` records every ``session/update`` it receives and answers permission requests from a queue of
option ids (``None``: the question is cancelled); ``wire`` holds every message as it crossed the pipe,
``stderr`` what hive logged. Its ``fs/*`` methods act as an editor's: a file with an open ``buffer`` is read
from it (unsaved changes), others from disk; a write updates the buffer and saves the file.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import acp
from acp import RequestError
from acp.connection import StreamEvent
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    SessionNotification,
    ToolCallUpdate,
    WriteTextFileResponse,
)

from tests.support.cli import hive_env


class EditorClient:
    """What an editor does with what hive sends: keeps the updates, answers the questions as scripted."""

    def __init__(self, *answers: str | None) -> None:
        self.answers = list(answers)
        self.updates: list[tuple[str, Any]] = []
        self.questions: list[tuple[ToolCallUpdate, list[PermissionOption]]] = []
        self.wire: list[dict[str, Any]] = []
        self.stderr = ""
        """What hive wrote to stderr (its log for the editor), once the process ended."""
        self.buffers: dict[str, str] = {}
        """Open files' text by absolute path, as the editor holds it (unsaved)."""
        self.unreadable: set[str] = set()
        """Paths the editor fails to read."""
        self.file_requests: list[tuple[str, str, str]] = []
        """Each ``fs/*`` request: (method, session id, path)."""

    def on_connect(self, conn: Any) -> None:
        return None

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.questions.append((tool_call, options))
        answer = self.answers.pop(0)
        if answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=answer))

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse:
        self.file_requests.append(("read", session_id, path))
        if path in self.unreadable:
            raise RequestError.internal_error({"message": "the editor lost that buffer"})
        text = self.buffers[path] if path in self.buffers else await asyncio.to_thread(Path(path).read_text)
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> WriteTextFileResponse:
        self.file_requests.append(("write", session_id, path))
        self.buffers[path] = content
        await asyncio.to_thread(Path(path).write_text, content)
        return WriteTextFileResponse()

    def kinds(self) -> list[str]:
        """The ``sessionUpdate`` kind of every update received, in order."""
        return [update.session_update for _, update in self.updates]

    def of_kind(self, kind: str) -> list[Any]:
        return [update for _, update in self.updates if update.session_update == kind]

    def said(self) -> str:
        """The agent's message text, joined."""
        return "".join(u.content.text for u in self.of_kind("agent_message_chunk"))

    def observe(self, event: StreamEvent) -> None:
        self.wire.append(event.message)

    def wire_notifications(self) -> list[dict[str, Any]]:
        """The ``session/update`` params as they came over the pipe (camelCase JSON)."""
        return [m["params"] for m in self.wire if m.get("method") == "session/update"]


def check_against_schema(notifications: list[dict[str, Any]]) -> None:
    """Every notification is a valid ``SessionNotification`` that the schema reads back without dropping a field."""
    for params in notifications:
        parsed = SessionNotification.model_validate(params)
        assert parsed.model_dump(mode="json", by_alias=True, exclude_none=True) == params


@asynccontextmanager
async def hive_acp(client: EditorClient, *args: str, cwd: Path) -> AsyncIterator[acp.core.ClientSideConnection]:
    """``python -m hive_cli acp ARGS`` spawned with the test's environment, connected to ``client``."""
    with tempfile.TemporaryFile() as stderr:
        try:
            async with acp.spawn_agent_process(
                client,
                sys.executable,
                "-m",
                "hive_cli",
                "acp",
                *args,
                env=hive_env(),
                cwd=cwd,
                observers=[client.observe],
                transport_kwargs={"stderr": stderr.fileno()},
            ) as (conn, _process):
                yield conn
        finally:
            stderr.seek(0)
            client.stderr += stderr.read().decode(errors="replace")

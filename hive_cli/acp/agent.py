"""hive's answers to the editor's requests (the SDK's ``Agent`` side), one ``EditorSession`` per ACP session.

Supported: ``initialize``, ``session/new``, ``session/load`` (hive's saved sessions, replayed), ``session/list``,
``session/prompt``, ``session/cancel``, ``session/set_mode`` (plan, work), ``session/set_config_option`` (the model), and
``authenticate`` (nothing to do: the model's key comes from hive's settings); the editor's MCP servers (stdio,
http, sse) join the session's; the file tools read and write through the editor's ``fs/read_text_file`` and
``fs/write_text_file`` when it offers them. Left out: ``session/fork``/``resume``/``close`` (unstable),
the client's terminals, and images and audio in prompts.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from acp import PROTOCOL_VERSION, Client, RequestError
from acp.helpers import update_current_mode
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from engine import __version__
from engine.config.loader import Overrides
from engine.errors import UserError
from engine.events import WorkingMode
from hive_cli.acp import opening
from hive_cli.acp.editor_files import EditorFilesOverAcp, with_editor_files
from hive_cli.acp.editor_servers import with_editor_servers
from hive_cli.acp.history import replay
from hive_cli.acp.host import EditorSession
from hive_cli.acp.listing import list_sessions
from hive_cli.acp.prompt_text import prompt_text
from hive_cli.acp.updates import Update

MODES: dict[str, tuple[WorkingMode, str, str]] = {
    "work": ("work", "Work", "Every tool, each call judged by hive's rules (asks come to the editor)."),
    "plan": ("plan", "Plan", "Read-only tools: look around and plan, change nothing."),
}
MODEL_OPTION = "model"


class HiveAgent:
    """The agent the editor talks to: opens hive sessions, runs their prompts, cancels them, closes them at the end."""

    def __init__(self, overrides: Overrides, offered_models: Sequence[str] = ()) -> None:
        self.overrides = overrides
        self.offered_models = tuple(offered_models)
        self.sessions: dict[str, EditorSession] = {}
        self.client_capabilities = ClientCapabilities()
        self._client: Client | None = None

    def on_connect(self, conn: Client) -> None:
        """Keep the connection: it is how hive sends updates and asks for permission."""
        self._client = conn

    @property
    def client(self) -> Client:
        """The editor's side of the connection."""
        assert self._client is not None, "on_connect comes first"
        return self._client

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        """hive's version of the protocol and what it offers: saved sessions, embedded context in prompts."""
        self.client_capabilities = client_capabilities or ClientCapabilities()
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            agent_info=Implementation(name="hive", title="hive", version=__version__),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse:
        """Nothing to authenticate: hive reads the model's key from its own settings."""
        return AuthenticateResponse()

    async def new_session(
        self, cwd: str, additional_directories: list[str] | None = None, mcp_servers: Any = None, **kwargs: Any
    ) -> NewSessionResponse:
        """A new hive session rooted at ``cwd``."""
        files = self._files()
        async with hive_errors():
            config = await asyncio.to_thread(opening.session_config, cwd, self.overrides)
            config = with_editor_files(with_editor_servers(config, mcp_servers), files)
            opened = await opening.open_new(config, self.client)
        session_id = files.session_id = self._keep(opened)
        return NewSessionResponse(
            session_id=session_id, modes=self._modes(opened), config_options=self._config_options(opened)
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, additional_directories: Any = None, **kwargs: Any
    ) -> LoadSessionResponse:
        """Reopen hive's saved session ``session_id``, its conversation replayed to the editor first."""
        if session_id in self.sessions:
            raise RequestError.invalid_params({"message": f"session {session_id} is already open"})
        files = self._files()
        async with hive_errors():
            config = await asyncio.to_thread(opening.session_config, cwd, self.overrides)
            config = with_editor_files(with_editor_servers(config, mcp_servers), files)
            saved = await asyncio.to_thread(opening.claim_saved, session_id)
            opened = await opening.open_saved(config, saved, self.client)
        files.session_id = self._keep(opened)
        for update in replay(saved):
            await self.client.session_update(session_id=session_id, update=update)
        return LoadSessionResponse(modes=self._modes(opened), config_options=self._config_options(opened))

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """hive's saved sessions (of ``cwd`` when given), the one used last first."""
        return await asyncio.to_thread(list_sessions, cwd, cursor)

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        """Run one turn of ``session_id``; the response comes when it ends (``cancelled`` after ``session/cancel``)."""
        opened = self._session(session_id)

        async def send(update: Update) -> None:
            await self.client.session_update(session_id=session_id, update=update)

        try:
            return await opened.prompt(prompt_text(prompt), send)
        except RuntimeError as error:
            raise RequestError.invalid_request({"message": str(error)}) from error

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        """Stop the session's running turn (a notification: no answer)."""
        opened = self.sessions.get(session_id)
        if opened is not None:
            opened.cancel()

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> SetSessionModeResponse:
        """Plan (read-only tools) or work, from the next model turn on."""
        opened = self._session(session_id)
        if mode_id not in MODES:
            raise RequestError.invalid_params({"message": f"no mode {mode_id!r}: plan or work"})
        opened.session.set_mode(MODES[mode_id][0])
        await self.client.session_update(session_id=session_id, update=update_current_mode(mode_id))
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        """Switch the model (the one configuration option hive offers), from the next request on."""
        opened = self._session(session_id)
        if config_id != MODEL_OPTION or not isinstance(value, str) or value not in self._models(opened):
            raise RequestError.invalid_params({"message": f"no option {config_id!r} with the value {value!r}"})
        opened.session.switch_model(value)
        return SetSessionConfigOptionResponse(config_options=self._config_options(opened))

    async def close(self) -> None:
        """Cancel what runs and close every session (the editor went away)."""
        for opened in list(self.sessions.values()):
            opened.cancel()
            try:
                await opened.session.close()
            finally:
                if opened.claimed is not None:
                    opening.release_saved(opened.claimed)
        self.sessions.clear()

    def _files(self) -> EditorFilesOverAcp:
        return EditorFilesOverAcp(self.client, self.client_capabilities, asyncio.get_running_loop())

    def _keep(self, opened: EditorSession) -> str:
        session_id = opened.approver.session_id
        self.sessions[session_id] = opened
        return session_id

    def _session(self, session_id: str) -> EditorSession:
        opened = self.sessions.get(session_id)
        if opened is None:
            raise RequestError.invalid_params({"message": f"no open session {session_id!r}"})
        return opened

    @staticmethod
    def _modes(opened: EditorSession) -> SessionModeState:
        return SessionModeState(
            current_mode_id=opened.session.mode,
            available_modes=[
                SessionMode(id=key, name=name, description=what) for key, (_, name, what) in MODES.items()
            ],
        )

    def _models(self, opened: EditorSession) -> tuple[str, ...]:
        return tuple(dict.fromkeys((opened.session.model, *self.offered_models)))

    def _config_options(self, opened: EditorSession) -> list[Any]:
        choices = [SessionConfigSelectOption(value=model, name=model) for model in self._models(opened)]
        return [
            SessionConfigOptionSelect(
                id=MODEL_OPTION,
                name="Model",
                category="model",
                type="select",
                current_value=opened.session.model,
                options=choices,
            )
        ]


@asynccontextmanager
async def hive_errors() -> AsyncIterator[None]:
    """hive's usage and configuration errors as the editor's error answer (its message, no traceback)."""
    try:
        yield
    except UserError as error:
        raise RequestError(-32602, str(error)) from error

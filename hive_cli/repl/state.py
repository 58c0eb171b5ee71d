"""What the REPL knows between prompts: where it works, its session (opened lazily), and start-up work.

The prompt appears before anything heavy is ready. Resolving the model (which may probe local
servers) and importing litellm happen in the background; the first request waits only for them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.model import litellm_import
from engine.paths import user_data_dir
from engine.usage import Usage, UsageLimits

if TYPE_CHECKING:  # the session machinery loads in the background, after the prompt is up
    from engine.events import RunResult
    from engine.model.resolve import ModelChoice
    from engine.model.types import Message
    from engine.policy.gate import Approver
    from engine.session import Session, SessionConfig
    from engine.sessions import LoadedSession, SessionStore
    from engine.settings import LayeredSettings

DEFAULT_MAX_TURNS = 50


@dataclass(frozen=True, kw_only=True)
class ReplOptions:
    """The command line of ``hive`` (the REPL)."""

    cwd: Path
    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    mode: str = "work"
    yes: bool = False
    max_turns: int | None = None
    continue_last: bool = False
    resume: str | None = None


class ReplState:
    """The REPL's session and what it needs to open one."""

    def __init__(self, options: ReplOptions) -> None:
        self.options = options
        self.cwd = options.cwd
        self.session: Session | None = None
        self.history: tuple[Message, ...] = ()
        self.resume_id: str | None = None
        self.mode = options.mode
        self.last_result: RunResult | None = None
        self._ready: asyncio.Task[tuple[LayeredSettings, ModelChoice]] | None = None

    def start_background(self) -> None:
        """Begin resolving the model and importing litellm while the user types."""
        litellm_import.preload()
        self._ready = asyncio.get_running_loop().create_task(asyncio.to_thread(self._resolve))

    def _resolve(self) -> tuple[LayeredSettings, ModelChoice]:
        # The session machinery is imported here too, in the background, to spare the first request that wait.
        from engine.model.resolve import resolve_model
        from engine.session import open_session  # noqa: F401
        from engine.settings import load_settings

        settings = load_settings(self.cwd)
        choice = resolve_model(
            flag_model=self.options.model,
            flag_api_base=self.options.api_base,
            flag_api_key=self.options.api_key,
            settings=settings,
        )
        return settings, choice

    async def ready(self) -> tuple[LayeredSettings, ModelChoice]:
        """The settings and the model; raises the configuration error, if any, to the caller."""
        if self._ready is None:
            self.start_background()
        assert self._ready is not None
        return await self._ready

    @property
    def store(self) -> SessionStore:
        """The saved sessions."""
        from engine.sessions import SessionStore

        return SessionStore(user_data_dir() / "sessions")

    @property
    def model_name(self) -> str:
        """The model in use, or what is known of it so far."""
        if self.session is not None:
            return self.session.loop.client.model
        if self._ready is not None and self._ready.done() and not self._ready.exception():
            return self._ready.result()[1].model
        return self.options.model or "…"

    async def ensure_session(self, approver: Approver | None, title: str = "") -> Session:
        """The session, opened on first use (waiting for start-up work if needed)."""
        if self.session is None:
            from engine.session import open_session

            settings, choice = await self.ready()
            await asyncio.to_thread(litellm_import.load)
            self.session = open_session(
                self._config(settings, choice),
                approver=approver,
                history=self.history,
                resume=self.resume_id,
                title=title,
            )
            # A session killed mid-round left calls without results; the model needs one for each.
            self.session.loop.conversation.answer_unanswered("Interrupted: hive stopped before this call ended.")
        return self.session

    def _config(self, settings: LayeredSettings, choice: ModelChoice) -> SessionConfig:
        from engine.session import SessionConfig

        return SessionConfig(
            cwd=self.cwd,
            model=choice,
            mode=self.mode,
            max_turns=self.options.max_turns or settings.get("max_turns") or DEFAULT_MAX_TURNS,
            limits=UsageLimits(
                max_total_tokens=settings.limit("max_total_tokens"), max_cost_usd=settings.limit("max_cost_usd")
            ),
            request_timeout_s=settings.get("request_timeout") or 600.0,
        )

    def load(self, loaded: LoadedSession) -> None:
        """Continue a saved session: its messages become the history of the next session opened."""
        self.close()
        self.history = loaded.messages
        self.resume_id = loaded.info.id

    def clear(self) -> None:
        """Start over: a new conversation (and a new session file) on the next request."""
        self.close()
        self.history = ()
        self.resume_id = None
        self.last_result = None

    def close(self) -> None:
        """Close the session file, if one is open."""
        if self.session is not None:
            self.session.close()
            self.session = None

    @property
    def usage(self) -> Usage:
        """Everything this session's runs cost so far."""
        return self.session.loop.usage if self.session is not None else Usage()

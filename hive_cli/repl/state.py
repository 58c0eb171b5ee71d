"""What the REPL knows between prompts: where it works, its session (opened lazily), and start-up work.

The prompt appears before anything heavy is ready. Loading the configuration (which may probe local
servers) and importing litellm happen in the background; the first request waits only for them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct

from engine.model import litellm_import
from engine.paths import user_data_dir
from engine.usage import Usage

if TYPE_CHECKING:  # the session machinery loads in the background, after the prompt is up
    from engine.config.loader import SessionConfig
    from engine.events import RunResult, WorkingMode
    from engine.policy.gate import Approver
    from engine.sandbox.options import SandboxMode
    from engine.session import Session
    from engine.session_store import LoadedSession, SessionStore


class ReplOptions(Struct, frozen=True, kw_only=True):
    """The command line of ``hive`` (the REPL)."""

    cwd: Path
    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    mode: WorkingMode | None = None
    yes: bool = False
    max_turns: int | None = None
    sandbox: SandboxMode | None = None
    continue_last: bool = False
    resume: str | None = None


class ReplState:
    """The REPL's session and what it needs to open one."""

    def __init__(self, options: ReplOptions) -> None:
        self.options = options
        self.cwd = options.cwd
        self.session: Session | None = None
        self.resumed: LoadedSession | None = None
        """The saved session the next session continues, if any."""
        self.chosen_mode: WorkingMode | None = options.mode
        """The mode the person asked for (flag or /plan, /work); the settings decide otherwise."""
        self.chosen_model: str | None = None
        """A model picked with /model before the session opened."""
        self.last_result: RunResult | None = None
        self.notes_for_model: list[str] = []
        """What the next request must tell the model first (what an /undo put back), then forgotten."""
        self._untold: tuple[str, ...] = ()
        self.approver: Callable[[], Approver] | None = None
        """Makes the approver for a session opened outside a request (``/mcp``); set by the REPL."""
        self.on_open: list[Callable[[Session], None]] = []
        """Called with each session as it opens (the REPL watches its MCP servers)."""
        self._ready: asyncio.Task[SessionConfig] | None = None
        self.told: set[str] = set()
        """Notices already said (at start-up), not to be said again when the session opens."""

    def start_background(self) -> None:
        """Begin loading the configuration and importing litellm while the user types (once)."""
        if self._ready is not None:  # a request sent before the delayed start already began it
            return
        self._ready = asyncio.get_running_loop().create_task(asyncio.to_thread(self._load))

    def _load(self, model: str | None = None) -> SessionConfig:
        # The session machinery is imported here too, in the background, to spare the first request that wait.
        from engine.agent import check_model_keys, needs_litellm, prepare_repo_map
        from engine.config.loader import Overrides, load_config
        from engine.model.model_check import check_provider_named
        from engine.session_open import open_session  # noqa: F401

        options = self.options
        overrides = Overrides(
            model=model or options.model,
            api_base=options.api_base,
            api_key=options.api_key,
            max_turns=options.max_turns,
            sandbox=options.sandbox,
        )
        config = load_config(self.cwd, overrides)
        check_provider_named(config.model.model, config.model.source, config.model.api_base)  # before litellm's import
        check_model_keys(config)  # said at start-up, not at the first request
        if needs_litellm(config):
            litellm_import.preload()
        prepare_repo_map(config)  # kept for the session's first request, built while the person types
        return config

    def reload(self) -> None:
        """Load the configuration again (the person trusted the project); the next session takes the new one."""
        self._ready = asyncio.get_running_loop().create_task(asyncio.to_thread(self._load, self.chosen_model))

    async def ready(self) -> SessionConfig:
        """The configuration; raises the configuration error, if any, to the caller.

        A model picked with /model after no model was found is used to load it again.
        """
        if self._ready is None:
            self.start_background()
        assert self._ready is not None
        if self.chosen_model is not None and self._ready.done() and self._ready.exception() is not None:
            self._ready = asyncio.get_running_loop().create_task(asyncio.to_thread(self._load, self.chosen_model))
        return await self._ready

    def when_loaded(self, callback: Callable[[BaseException | None], None]) -> None:
        """Call ``callback`` with the configuration error (or None) once the background load is done."""
        assert self._ready is not None
        self._ready.add_done_callback(lambda task: callback(None if task.cancelled() else task.exception()))

    def loaded_config(self) -> SessionConfig | None:
        """The configuration the background load produced, once it is done without error; else None."""
        if self._ready is not None and self._ready.done() and not self._ready.exception():
            return self._ready.result()
        return None

    @property
    def store(self) -> SessionStore:
        """The saved sessions."""
        from engine.session_store import SessionStore

        return SessionStore(user_data_dir() / "sessions")

    @property
    def model_name(self) -> str:
        """The model in use, or what is known of it so far."""
        if self.session is not None:
            return self.session.model
        if self.chosen_model is not None:
            return self.chosen_model
        config = self.loaded_config()
        return config.model.model if config is not None else self.options.model or "…"

    @property
    def mode(self) -> WorkingMode:
        """The mode the next request runs in: the person's choice, else the settings', else work."""
        if self.chosen_mode is not None:
            return self.chosen_mode
        config = self.loaded_config()
        return config.mode if config is not None else "work"

    def choose_mode(self, mode: WorkingMode) -> None:
        """The person picked a mode (/plan, /work): it holds for this session and the next ones."""
        self.chosen_mode = mode
        if self.session is not None:
            self.session.set_mode(mode)

    def choose_model(self, model: str) -> None:
        """The person picked a model (/model NAME): from the next request on.

        ``UserError`` (and no switch) when its provider is unknown or its key is missing (once the
        configuration is loaded), said at once without importing litellm.
        """
        from engine.model.model_check import check_api_key, check_provider_named

        config = self.loaded_config()
        api_base = config.model.api_base if config is not None else self.options.api_base
        check_provider_named(model, "/model", api_base)
        if config is not None:
            check_api_key(model, api_base, config.model.api_key, "/model")
        if self.session is not None:
            self.session.switch_model(model)
        else:
            self.chosen_model = model

    async def ensure_session(self, approver: Approver | None, title: str = "") -> Session:
        """The session, opened on first use (waiting for start-up work if needed)."""
        if self.session is None:
            from msgspec.structs import replace

            from engine.agent import needs_litellm
            from engine.session_open import open_session

            config = await self.ready()
            if needs_litellm(config):
                await asyncio.to_thread(litellm_import.load)
            config = replace(config, mode=self.mode)
            self.session = await open_session(config, approver=approver, resume=self.resumed, title=title)
            if self.chosen_model is not None:
                self.session.switch_model(self.chosen_model)
            self._untold = self.session.notices
            # A session killed mid-round left calls without results; the model needs one for each.
            self.session.answer_unanswered("Interrupted: hive stopped before this call ended.")
            for hook in self.on_open:
                hook(self.session)
        return self.session

    def take_notices(self) -> tuple[str, ...]:
        """What the session opened last must tell the person, once."""
        untold, self._untold = self._untold, ()
        return tuple(notice for notice in untold if notice not in self.told)

    async def load(self, loaded: LoadedSession) -> None:
        """Continue a saved session (claimed by the caller): the next session opened appends to it."""
        await self.close()
        self._unclaim()
        self.resumed = loaded
        self.told.add(loaded.notice)  # shown with its transcript, not again when the session opens
        self.notes_for_model.clear()  # they were about another conversation

    async def clear(self) -> None:
        """Start over: a new conversation (and a new session file) on the next request."""
        await self.close()
        self._unclaim()
        self.resumed = None
        self.last_result = None
        self.notes_for_model.clear()

    def _unclaim(self) -> None:
        """Let go of the saved session this REPL was continuing (its writer, if open, is closed already)."""
        if self.resumed is not None:
            self.store.unclaim(self.resumed.info.id)

    async def close(self) -> None:
        """Close the session (its toolsets and its file), if one is open."""
        if self.session is not None:
            session, self.session = self.session, None
            await session.close()

    @property
    def usage(self) -> Usage:
        """Everything this session's runs cost so far."""
        return self.session.usage if self.session is not None else Usage()

"""The context window: how large it is for a model, and what fills it (in the model's tokens once litellm is loaded)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from msgspec import Struct

from engine.context.masking import is_masked
from engine.context.served_window import ServedWindows
from engine.context.tokens import counter_for
from engine.conversation import is_summary
from engine.model import litellm_import
from engine.model.pricing import max_input_tokens
from engine.model.types import Message
from engine.skills.selection import SECTION_HEADER
from engine.tools.base import ToolSpec

ROLE_ROWS = {"user": "your messages", "assistant": "hive's replies", "tool": "tool results"}


GUESSED_WINDOW = 32_768
"""The window assumed for a model nobody knows the window of: small enough to be safe for most models."""
WindowSource = Literal["learned", "setting", "server", "model info", "guess"]
_known_windows: dict[str, int] = {}


class Window(Struct, frozen=True, kw_only=True):
    """A model's context window in tokens, and where that figure comes from."""

    tokens: int
    source: WindowSource
    """``learned`` (from the provider's overflow error), ``setting`` (``context_window``), ``server`` (what the
    local server said it serves, or an earlier run's overflow error), ``model info`` (litellm's model table) or
    ``guess``."""
    where: str = ""
    """For ``server``: where it was learned (``llama.cpp /props``, ``overflow error``...)."""

    @property
    def known(self) -> bool:
        """False for a guess: compaction then waits for the provider's first overflow instead of a share of it."""
        return self.source != "guess"


def context_window(model: str) -> int | None:
    """The model's input window from litellm's model table (read as data when litellm is not loaded), or None."""
    if model in _known_windows:
        return _known_windows[model]
    litellm = litellm_import.loaded()
    if litellm is None:
        window: object = max_input_tokens(model)  # hive's own clients never load litellm
    else:
        try:
            info = litellm.get_model_info(model)
        except Exception:  # unknown models raise plain exceptions
            return None
        window = info.get("max_input_tokens") if isinstance(info, dict) else None
    if not isinstance(window, int | float) or not window:
        return None
    _known_windows[model] = int(window)
    return int(window)


def window_for(model: str, configured: int | None = None, guess: int = GUESSED_WINDOW) -> Window:
    """The window of ``model``: the ``context_window`` setting, else litellm's model info, else ``guess``.

    Never blocks on importing litellm: before it is loaded a model without a setting gets the guess.
    """
    if configured:
        return Window(tokens=configured, source="setting")
    known = context_window(model)
    if known:
        return Window(tokens=known, source="model info")
    return Window(tokens=guess, source="guess")


class Windows:
    """The windows one agent works with: what a provider said in an overflow error wins over the setting, what
    the model's server says it serves (``served``) and ``window_for``."""

    def __init__(
        self, configured: int | None = None, served: ServedWindows | None = None, guess: int = GUESSED_WINDOW
    ) -> None:
        self.configured = configured
        self.guess = guess
        """The window assumed when nothing says (the ``guessed_window`` setting)."""
        """The ``context_window`` setting."""
        self.served = served
        """The local server's windows (asked once per server and model); None: not asked."""
        self._learned: dict[str, int] = {}

    def learn(self, model: str, tokens: int) -> Window:
        """Remember the window the provider gave for ``model``: it is used from now on (and kept for the server)."""
        self._learned[model] = tokens
        if self.served is not None:
            self.served.learned(model, tokens)
        return Window(tokens=tokens, source="learned")

    def of(self, model: str) -> Window:
        """The window of ``model``: learned, else the setting, else its server's, else litellm's model info, else a
        guess."""
        learned = self._learned.get(model)
        if learned:
            return Window(tokens=learned, source="learned")
        if not self.configured and self.served is not None:
            fact = self.served.of(model)
            if fact is not None:
                return Window(tokens=fact.tokens, source="server", where=fact.source)
        return window_for(model, self.configured, self.guess)


def percent_used(model: str, prompt_tokens: int | None, window: Window) -> float | None:
    """How full ``window`` is after a request of ``prompt_tokens`` (None when either is unknown or guessed)."""
    if prompt_tokens is None or not window.known:
        return None
    return 100 * prompt_tokens / window.tokens


class ContextBreakdown(Struct, frozen=True, kw_only=True):
    """What fills the context window, by kind of content, in tokens."""

    model: str
    rows: tuple[tuple[str, int], ...]
    """(what, tokens) in display order: system prompt, tool definitions, then each kind of message."""
    window: Window = Window(tokens=GUESSED_WINDOW, source="guess")
    exact: bool = False
    """Counted with a tokenizer; False: estimated at about four characters a token (no tokenizer file)."""

    @property
    def total(self) -> int:
        """Every row together."""
        return sum(tokens for _, tokens in self.rows)

    @property
    def free(self) -> int:
        """What is left of the window (none once it is over-full)."""
        return max(0, self.window.tokens - self.total)

    @property
    def percent(self) -> float | None:
        """The share of the window in use."""
        return 100 * self.total / self.window.tokens


def breakdown(
    model: str,
    instructions: str,
    tools: Sequence[ToolSpec],
    view: Sequence[Message],
    window: Window,
) -> ContextBreakdown:
    """The breakdown of a request with ``instructions``, ``tools`` and ``view`` (the conversation as it is sent)."""
    counter = counter_for(model)
    prompt, skills = split_skills_section(instructions)
    rows: dict[str, int] = {
        "system prompt": counter.message({"role": "system", "content": prompt}) if prompt else 0,
        "skills section": counter.text(skills),
        "tool definitions": counter.tools([spec.to_openai() for spec in tools]),
    }
    for message in view:
        kind = _kind(message)
        rows[kind] = rows.get(kind, 0) + counter.message(message)
    return ContextBreakdown(model=model, rows=tuple(rows.items()), window=window, exact=counter.exact)


def split_skills_section(instructions: str) -> tuple[str, str]:
    """The system prompt without its skills section, and the section (empty when there is none)."""
    start = instructions.find(SECTION_HEADER)
    if start < 0:
        return instructions, ""
    end = instructions.find("\n\n# ", start + len(SECTION_HEADER))
    end = len(instructions) if end < 0 else end
    return instructions[:start] + instructions[end:], instructions[start:end]


def _kind(message: Message) -> str:
    if is_summary(message):
        return "summary of earlier messages"
    if is_masked(message):
        return "masked tool results"
    return ROLE_ROWS.get(str(message.get("role")), "other")

"""The REPL's status line: mode, model, how full the context window is, tokens and cost so far.

The context share is the one ``/context`` shows (the next request's content against the model's
window); it is counted again only after something may have changed it, not at every redraw.
"""

from __future__ import annotations

from prompt_toolkit.formatted_text import HTML, AnyFormattedText

from hive_cli.output.summaries import total_tokens_text
from hive_cli.repl.state import ReplState

UNKNOWN = "–"


class StatusLine:
    """Draws the status line (prompt-toolkit's bottom toolbar) from the REPL's state."""

    def __init__(self, state: ReplState) -> None:
        self.state = state
        self._share = UNKNOWN
        self._counted_for: tuple[object, ...] | None = None

    def __call__(self) -> AnyFormattedText:
        state = self.state
        usage = state.usage
        tokens = total_tokens_text(usage) if usage.calls else "0 tokens"
        cost = "not priced" if usage.cost_usd is None else f"${usage.cost_usd:.4f}"
        return HTML(
            f" <b>{state.mode}</b> │ {escape(state.model_name)} │ context {self.context_share()} │ {tokens} │ {cost} "
        )

    def changed(self) -> None:
        """The conversation, the model or the tools may have changed (a request ran, a command was handled)."""
        self._counted_for = None

    def context_share(self) -> str:
        """ "11%" as ``/context`` counts it ("~11%" when the model's window is a guess), "–" before a session."""
        session = self.state.session
        if session is None:
            return UNKNOWN
        counted_for = (id(session), len(session.messages), session.model, session.mode)
        if counted_for != self._counted_for:
            context = session.context_breakdown()
            percent = context.percent
            mark = "" if context.window.known else "~"
            self._share = UNKNOWN if percent is None else f"{mark}{percent:.0f}%"
            self._counted_for = counted_for
        return self._share


def escape(text: str) -> str:
    """``text`` safe inside prompt-toolkit's HTML."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

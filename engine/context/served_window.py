"""The window a local or self-hosted server serves a model with: asked once, kept in the served-facts records.

``ServedWindows.of`` reads the record for the server and model; without one it asks the server
(``engine.model.window_probe``, imported only then) and keeps what it said, or that it said nothing, so
the next run asks nothing. A server that did not answer at all is asked again next run. A window an
overflow error named is kept the same way (``learned``), and wins over what the server said before.
"""

from __future__ import annotations

from msgspec import Struct
from msgspec.structs import replace

from engine.model.served_facts import ServedModel, facts_for, remember

OVERFLOW_SOURCE = "overflow error"


class ServedWindowFact(Struct, frozen=True, kw_only=True):
    """A window a server serves, and where hive learned it."""

    tokens: int
    source: str


class ServedWindows:
    """The windows the server at ``api_base`` (the model's server when None) serves each model with."""

    def __init__(self, api_base: str | None) -> None:
        self.api_base = api_base
        self._asked: dict[str, ServedWindowFact | None] = {}

    def of(self, model: str) -> ServedWindowFact | None:
        """The window the server serves ``model`` with, or None when it is not a server that says (or did not)."""
        if model in self._asked:
            return self._asked[model]
        fact = self._recalled_or_asked(model)
        self._asked[model] = fact
        return fact

    def learned(self, model: str, tokens: int) -> None:
        """Keep the window an overflow error named for ``model``, for this run and the next ones."""
        base = self._server(model)
        if base is None:
            return
        record = facts_for(base, model) or ServedModel(api_base=base, model=model)
        remember(replace(record, window=tokens, window_source=OVERFLOW_SOURCE, window_note=None))
        self._asked[model] = ServedWindowFact(tokens=tokens, source=OVERFLOW_SOURCE)

    def _recalled_or_asked(self, model: str) -> ServedWindowFact | None:
        base = self._server(model)
        if base is None:
            return None
        record = facts_for(base, model)
        if record is None:
            record = self._ask(base, model)
        if record is None or not record.window:
            return None
        return ServedWindowFact(tokens=record.window, source=record.window_source or "the server")

    def _ask(self, base: str, model: str) -> ServedModel | None:
        from engine.model.window_probe import ask_window

        probe = ask_window(base, served_name(model))
        if not probe.answered:
            return None
        window = probe.window
        record = ServedModel(api_base=base, model=model)
        if window is not None:
            record = replace(record, window=window.tokens, window_source=window.source, window_note=window.note)
        return remember(record)

    def _server(self, model: str) -> str | None:
        from engine.model.window_probe import server_to_ask

        return server_to_ask(model, self.api_base)


def served_name(model: str) -> str:
    """The model as its server names it: hive's name without the provider prefix."""
    return model.split("/", 1)[1] if "/" in model else model

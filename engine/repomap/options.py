"""The ``repo_map`` section of the settings."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from engine.config.validation import StrictRecord

AUTO_MIN_WINDOW = 64_000
"""With ``in_first_request: auto``, the map joins the first request only for a model whose
context window is known and at least this many tokens. At 32k (hive's guess for an unknown model, and the
window many local models are served with) the system prompt and the tool schemas already take a quarter
of it, and a small model follows a long prompt less well; at 64k and above a map of the default budget
takes under two percent."""


class RepoMapOptions(StrictRecord, frozen=True):
    """The repository map: the ``repo_map`` tool, and a small map in the first request of a session."""

    budget_tokens: Annotated[int, Meta(ge=64, le=32_768)] = 1024
    """Tokens the map in the first request takes at most (counted with the model's tokenizer)."""
    in_first_request: bool | Literal["auto"] = "auto"
    """Put the map into the system prompt of a session in a git repository: ``auto`` (the default) when the
    model's window is known and at least 64k tokens, or ``true`` / ``false`` always. The map is kept between
    sessions (rebuilt only when a mapped file, the read rules or these options change)."""
    max_files: Annotated[int, Meta(gt=0)] = 5000
    """Files the map in the first request reads at most (the first ones in path order): a bound on a session's
    start (the ``repo_map`` tool reads at most 5,000)."""

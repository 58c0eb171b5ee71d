"""The engine's exceptions, in three families.

* ``UserError``: bad input from the person running hive (flags, configuration files, a missing
  model). Hosts show the message without a traceback and exit with status 2.
* ``RunError``: the run failed while working (provider errors after retries).
  Hosts show the message and exit with the error's ``exit_code``. Limits (turns, tokens, cost) are
  not exceptions: the run ends with an exit reason, which ``hive run`` maps to status 3.
* Loop signals are not here: tools report failure through their results, never by raising.
"""

from __future__ import annotations

from typing import Literal

ErrorCategory = Literal[
    "rate_limit",
    "transient",
    "context_overflow",
    "window_too_small",
    "auth",
    "bad_request",
    "bad_response",
    "not_found",
    "tool",
    "limit",
    "cancelled",
    "unknown",
]


class HiveError(Exception):
    """Base of every error hive raises on purpose; ``str(error)`` is the message for the user."""

    exit_code: int = 1


class UserError(HiveError):
    """Bad input or configuration; exit status 2."""

    exit_code = 2


class NoModelError(UserError):
    """No model is configured anywhere and no local model server answered."""


class ConfigError(UserError):
    """A configuration file exists but is not valid; names the file (and line when known)."""


class RunError(HiveError):
    """The run failed while working; exit status 1 unless a subclass says otherwise."""

    category: ErrorCategory = "unknown"


class ProviderError(RunError):
    """The model provider failed, after hive's own retries where retrying made sense."""

    def __init__(
        self,
        message: str,
        *,
        category: ErrorCategory,
        status_code: int | None = None,
        retry_after_s: float | None = None,
        after_output: bool = False,
    ) -> None:
        super().__init__(message)
        self.category = category
        self.status_code = status_code
        self.retry_after_s = retry_after_s
        self.after_output = after_output
        """True when the failure came after some output had already streamed."""

    @property
    def retryable(self) -> bool:
        """Whether waiting and sending the same request again may help."""
        return self.category in ("rate_limit", "transient")


class ContextOverflowError(ProviderError):
    """The request did not fit in the model's context window."""

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message, category="context_overflow", status_code=status_code)


class HistoryError(UserError):
    """The conversation history cannot be continued as asked (e.g. tool calls lack results)."""

"""What hive does about each kind of failure: one table, read by the model layer and by the loop.

The model layer retries what may succeed when sent again before any output arrived (rate limits wait
for Retry-After, transient failures back off). The loop compacts and retries a refused overflow, and
resumes a reply cut after output as a new turn. Everything else stops the run, with a fix-it line that
names the key or the setting to change. A host may pass its own table (:class:`Recoveries`) through
``SessionConfig.recoveries``: each category's strategies, words and the number of cut replies a run resumes.
Standard library only.
"""

from __future__ import annotations

from typing import Literal

from msgspec import Struct, field

from engine.errors import ErrorCategory, ProviderError

Strategy = Literal["backoff", "retry_after", "compact", "resume", "to_model", "stop"]
"""``backoff``: retry after an exponential, jittered delay; ``retry_after``: retry after the provider's
Retry-After (backoff when it sent none); ``compact``: compact the conversation and retry once;
``resume``: start a new turn that continues the cut reply; ``to_model``: the failure goes back to the
model as a tool result; ``stop``: end the run with the fix-it message."""

MAX_RESUMES_PER_RUN = 2
"""Cut replies a run resumes (at most one per model turn); the next cut stops the run."""


class Recovery(Struct, frozen=True, kw_only=True):
    """How one category of failure is handled, and what to tell the person when it stops the run."""

    before_output: Strategy
    """What to do when nothing of the reply had arrived yet."""
    after_output: Strategy
    """What to do when part of the reply had already streamed."""
    summary: str
    """What happened, in a few words (leads the error message)."""
    fix: str
    """What the person can change; ``{key_env}`` stands for the provider's key variable."""


RECOVERY: dict[ErrorCategory, Recovery] = {
    "rate_limit": Recovery(
        before_output="retry_after",
        after_output="resume",
        summary="rate limited by the provider",
        fix="wait a minute and run again, or use a key with a higher rate limit ({key_env})",
    ),
    "transient": Recovery(
        before_output="backoff",
        after_output="resume",
        summary="the provider failed",
        fix="run again; if it keeps failing, check --api-base (api_base in settings.yaml) "
        "or raise request_timeout in settings.yaml",
    ),
    "context_overflow": Recovery(
        before_output="compact",
        after_output="stop",
        summary="the conversation does not fit in the model's context window",
        fix="start a new conversation (/clear), or set context.context_window in settings.yaml "
        "to the model's real window",
    ),
    "window_too_small": Recovery(
        before_output="stop",
        after_output="stop",
        summary="the model's context window cannot hold hive's instructions and smallest tool set",
        fix="serve the model with a larger window (Ollama: num_ctx; llama.cpp: --ctx-size; LM Studio: the context "
        "length when loading it), or pick a model with a larger one; hive models shows the window hive learned",
    ),
    "auth": Recovery(
        before_output="stop",
        after_output="stop",
        summary="the provider refused the credentials (check the API key, its permissions and its credit)",
        fix="set {key_env}, or HIVE_API_KEY, or pass --api-key, or name the variable in api_key_env "
        "in settings.yaml; check the key's permissions and credit",
    ),
    "bad_request": Recovery(
        before_output="stop",
        after_output="stop",
        summary="the provider rejected the request",
        fix="check --model (model in settings.yaml) and that the model supports tools; "
        "run with --debug to see the request",
    ),
    "bad_response": Recovery(
        before_output="stop",
        after_output="stop",
        summary="the provider's answer was not a completion",
        fix="check that --api-base (api_base in settings.yaml) is the server's OpenAI-compatible /v1 address",
    ),
    "not_found": Recovery(
        before_output="stop",
        after_output="stop",
        summary="the provider does not know this model or endpoint (check --model and --api-base)",
        fix="check --model (model in settings.yaml) and --api-base (api_base in settings.yaml)",
    ),
    "tool": Recovery(
        before_output="to_model",
        after_output="to_model",
        summary="a tool failed",
        fix="the model sees the tool's error and may try another way; check the tool's arguments and permissions",
    ),
    "limit": Recovery(
        before_output="stop",
        after_output="stop",
        summary="a limit was reached",
        fix="raise --max-turns (max_turns in settings.yaml) or the limits section of settings.yaml",
    ),
    "cancelled": Recovery(
        before_output="stop",
        after_output="stop",
        summary="cancelled",
        fix="nothing to fix: the run was cancelled and keeps what its tools produced",
    ),
    "unknown": Recovery(
        before_output="stop",
        after_output="stop",
        summary="the model call failed",
        fix="run again with --debug to see the whole error",
    ),
}


class Recoveries(Struct, frozen=True, kw_only=True):
    """What the model layer and the loop do about each category of failure: hive's table, or a host's own."""

    rows: dict[ErrorCategory, Recovery] = field(default_factory=lambda: dict(RECOVERY))
    """One row per category; a category the table leaves out is handled as hive's table says."""
    max_resumes_per_run: int = MAX_RESUMES_PER_RUN

    def row(self, category: ErrorCategory) -> Recovery:
        """The row for ``category``."""
        return self.rows.get(category) or RECOVERY[category]

    def strategy_for(self, error: ProviderError) -> Strategy:
        """What to do about ``error``, depending on whether output had already arrived."""
        row = self.row(error.category)
        return row.after_output if error.after_output else row.before_output

    def retried_by_model_layer(self, error: ProviderError) -> bool:
        """Whether sending the same request again is the remedy (the model layer's retries)."""
        return self.strategy_for(error) in ("backoff", "retry_after")

    def fix_it(self, category: ErrorCategory, key_env: str | None = None) -> str:
        """The fix-it line for a stop of ``category``; ``key_env`` names the provider's key variable."""
        return self.row(category).fix.format(key_env=key_env or "the provider's API key variable")

    def with_row(self, category: ErrorCategory, recovery: Recovery) -> Recoveries:
        """This table with ``category`` handled by ``recovery``."""
        return Recoveries(rows={**self.rows, category: recovery}, max_resumes_per_run=self.max_resumes_per_run)


HIVE_RECOVERIES = Recoveries()
"""hive's own table."""


def recovery_for(category: ErrorCategory) -> Recovery:
    """hive's row for ``category``."""
    return HIVE_RECOVERIES.row(category)


def fix_it(category: ErrorCategory, key_env: str | None = None) -> str:
    """hive's fix-it line for a stop of ``category``; ``key_env`` names the provider's key variable."""
    return HIVE_RECOVERIES.fix_it(category, key_env)

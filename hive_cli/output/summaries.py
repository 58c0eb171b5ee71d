"""Short human summaries shared by the renderers: a call's key argument and timing, the usage line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hive_cli.terminal_text import visible

if TYPE_CHECKING:  # annotations only: the REPL's status line uses these helpers before the prompt is up
    from engine.events import RunResult, ToolCall, ToolOutcome, Usage

KEY_ARGUMENTS = ("command", "path", "pattern", "name", "task", "url", "query")
MAX_KEY_CHARS = 80
SHOWN_WAIT_S = 0.05
"""Waits for a person shorter than this are not worth a word."""


def key_argument(call: ToolCall) -> str:
    """The one argument that best says what a call does (command, path, pattern...), its control characters shown."""
    for name in KEY_ARGUMENTS:
        value = call.arguments.get(name)
        if isinstance(value, str) and value:
            value = visible(value, keep_newlines=True).replace("\n", " ⏎ ")
            return value if len(value) <= MAX_KEY_CHARS else value[: MAX_KEY_CHARS - 1] + "…"
    return ""


def size_note(outcome: ToolOutcome) -> str:
    """How much a ``web_fetch`` downloaded ("12.3 KB"), from its result's header; "" for other calls."""
    if outcome.call.name != "web_fetch" or not outcome.success:
        return ""
    from engine.tools.web.page import fetched_size

    return fetched_size(outcome.output) or ""


def timing(outcome: ToolOutcome) -> str:
    """ "0.01s", or "0.01s, waited 15.9s" when the call waited for a person's decision."""
    ran = f"{outcome.duration_s:.2f}s"
    return f"{ran}, waited {outcome.waited_s:.1f}s" if outcome.waited_s >= SHOWN_WAIT_S else ran


def tokens_text(usage: Usage) -> str:
    """ "1,234 in (1,000 cached) / 56 out", with "?" for counts nobody reported and "~" before estimated ones."""
    mark = "~" if usage.estimated else ""
    prompt = "?" if usage.prompt_tokens is None else f"{mark}{usage.prompt_tokens:,}"
    completion = "?" if usage.completion_tokens is None else f"{mark}{usage.completion_tokens:,}"
    cached = f" ({usage.cached_read_tokens:,} cached)" if usage.cached_read_tokens else ""
    return f"{prompt} in{cached} / {completion} out"


def total_tokens_text(usage: Usage) -> str:
    """ "1,290 tokens", "~1,290 tokens" when estimated, "? tokens" when nothing was reported."""
    total = usage.total_tokens
    if total is None:
        return "? tokens"
    return f"{'~' if usage.estimated else ''}{total:,} tokens"


def cost_text(usage: Usage) -> str:
    """ "$0.0123", or "not priced" when the model has no known price."""
    return "not priced" if usage.cost_usd is None else f"${usage.cost_usd:.4f}"


def usage_line(result: RunResult, duration_s: float) -> str:
    """One line: tokens, cost, tool calls and duration of a run (from its usage report when tracked)."""
    return f"hive: {usage_summary(run_usage(result), len(result.tool_outcomes), duration_s)}"


def run_usage(result: RunResult) -> Usage:
    """What a run cost: its usage report's total when tracked, else its usage."""
    return result.report.total if result.report is not None else result.usage


def usage_summary(usage: Usage, calls: int, duration_s: float) -> str:
    """ "tokens 1,234 in / 56 out · cost $0.0123 · 2 tool calls · 3.4s" """
    return (
        f"tokens {tokens_text(usage)} · cost {cost_text(usage)} · "
        f"{calls} tool call{'s' if calls != 1 else ''} · {duration_s:.1f}s"
    )

"""/context: the session's breakdown of the context window, as a table (≈ while the counts are estimated)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.table import Table

    from engine.context.window import ContextBreakdown


def context_table(context: ContextBreakdown) -> Table:
    """A table of the system prompt, tools, and each kind of message, in tokens."""
    from rich.table import Table

    total = context.total
    table = Table(box=None, padding=(0, 2), title=f"context of {context.model}", title_justify="left")
    table.add_column("what")
    table.add_column("tokens" if context.exact else "≈ tokens", justify="right")
    table.add_column("share", justify="right")
    for name, tokens in context.rows:
        table.add_row(name, f"{tokens:,}", f"{100 * tokens / total:.0f}%" if total else "")
    window = context.window
    guessed = "" if window.known else ", a guess: the model's window is unknown"
    used = f"{total:,} of {window.tokens:,} ({context.percent:.1f}%{guessed})"
    table.add_row("total", used, "", style="bold")
    table.add_row("free", f"{context.free:,}", f"{100 * context.free / window.tokens:.0f}% of the window", style="dim")
    return table

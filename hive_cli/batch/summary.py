"""The table at the end of a batch: one row per task, then the totals."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

from hive_cli.batch.budget import Budget
from hive_cli.batch.results import BatchResult
from hive_cli.batch.tasks import BatchTask
from hive_cli.safe_console import SafeConsole


def show_summary(
    tasks: list[BatchTask], outcomes: dict[str, BatchResult], unstarted: list[str], budget: Budget, results: Path
) -> None:
    """Print the table and the totals on stdout."""
    table = Table("task", "status", "exit reason", "cost", "files", "session", box=None, pad_edge=False)
    for task in tasks:
        result = outcomes.get(task.id)
        if result is None:
            table.add_row(task.id, "not started" if task.id in unstarted else "not run", "", "", "", "")
            continue
        table.add_row(
            task.id,
            result.status,
            result.exit_reason or _short(result.error),
            _dollars(result.cost_usd),
            str(len(result.changed_files)),
            result.session_id or "",
        )
    console = SafeConsole(highlight=False, width=160)
    console.print(table, markup=False)
    console.print(_totals(tasks, outcomes, unstarted, budget, results), markup=False, highlight=False, soft_wrap=True)


def _totals(
    tasks: list[BatchTask], outcomes: dict[str, BatchResult], unstarted: list[str], budget: Budget, results: Path
) -> str:
    succeeded = sum(result.status == "succeeded" for result in outcomes.values())
    failed = sum(result.status == "failed" for result in outcomes.values())
    parts = [f"{len(tasks)} tasks: {succeeded} succeeded", f"{failed} failed"]
    if unstarted:
        parts.append(f"{len(unstarted)} not started (the budget of ${budget.limit_usd:.4f} was reached)")
    return ", ".join(parts) + f" · cost ${budget.spent_usd:.4f} · results: {results}"


def _dollars(cost: float | None) -> str:
    return "not priced" if cost is None else f"${cost:.4f}"


def _short(error: str | None) -> str:
    if not error:
        return ""
    return error if len(error) <= 60 else error[:59] + "…"

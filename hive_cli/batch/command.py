"""``hive batch TASKS.jsonl``: its signature only; the batch is imported when the command runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from hive_cli.cli_base import exit_with
from hive_cli.cli_options import (
    max_turns_option,
    mode_option,
    model_options,
    positive,
    sandbox_option,
    yes_option,
)
from hive_cli.errors import exit_on_error
from hive_cli.headless.options import max_cost_option


@click.command("batch")
@click.argument("tasks", metavar="TASKS.jsonl", type=click.Path(path_type=Path))
@click.option(
    "--workers",
    metavar="N",
    type=int,
    callback=positive,
    help="Run up to N tasks at a time (default: one per CPU).",
)
@click.option(
    "--results",
    metavar="FILE",
    type=click.Path(path_type=Path),
    help="The results, one JSON line per finished task (default: TASKS.results.jsonl beside TASKS.jsonl). "
    "A batch started again skips the tasks it holds.",
)
@click.option(
    "--workspace",
    metavar="DIR",
    type=click.Path(path_type=Path),
    help="Where each task's working copy, patch and output go (default: TASKS.work/ beside TASKS.jsonl).",
)
@click.option(
    "--budget-usd",
    metavar="DOLLARS",
    type=click.FloatRange(min=0, min_open=True),
    help="The whole batch's budget: no new task starts once this much is spent (running ones finish; exit 3).",
)
@click.option(
    "--ray",
    "ray_address",
    metavar="ADDRESS",
    is_flag=False,
    flag_value="",
    help="Run the tasks as Ray tasks: on the cluster at ADDRESS (HOST:PORT or ray://HOST:PORT), or without one "
    "on the cluster running on this machine (auto). Needs pip install 'hive-agent[ray]'.",
)
@click.option(
    "--task-timeout",
    "task_timeout_s",
    metavar="SECONDS",
    type=click.FloatRange(min=0, min_open=True),
    help="Stop a task's hive run after this long (a failed task); default: no limit.",
)
@model_options
@mode_option
@yes_option
@sandbox_option
@max_turns_option
@max_cost_option
@click.option("--debug", is_flag=True, help="Show tracebacks for internal errors.")
def batch_command(tasks: Path, debug: bool, **flags: Any) -> None:
    """Run many tasks, each in its own working copy, with hive run; results as JSON lines as they finish.

    Exit status: 0 every task succeeded, 1 one failed, 2 bad input, 3 the budget left tasks unstarted.
    """
    with exit_on_error(debug):
        from hive_cli.batch.host import BatchRequest, run_batch

        exit_with(run_batch(BatchRequest(tasks=tasks, **flags)))

"""The ``hive run`` options of the headless contract, as click decorators (no heavy imports here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn

import click

from hive_cli.cli_base import exit_with, options
from hive_cli.terminal_text import echo

INPUT_FORMATS = ("text", "stream-json")
HEADLESS_NAMES = ("output_schema", "input_format", "approval_timeout_s", "approval_tool", "images", "max_cost_usd")

max_cost_option = click.option(
    "--max-cost-usd",
    metavar="DOLLARS",
    type=click.FloatRange(min=0, min_open=True),
    help="Refuse new model turns once the run has cost this much (priced models; exit 3). "
    "Default: the settings' limits.max_cost_usd.",
)

headless_options = options(
    max_cost_option,
    click.option(
        "--output-schema",
        metavar="FILE",
        type=click.Path(path_type=Path),
        help="A JSON Schema the final answer must be valid against; asked once more if not, then exit 4.",
    ),
    click.option(
        "--input-format",
        type=click.Choice(INPUT_FORMATS),
        default="text",
        show_default=True,
        help="stream-json: user messages and approval answers as JSON lines on stdin, one conversation until EOF "
        "(with -o stream-json).",
    ),
    click.option(
        "--approval-timeout",
        "approval_timeout_s",
        metavar="SECONDS",
        type=click.FloatRange(min=0, min_open=True),
        help="With stream-json input: how long an approval question waits for its answer before it is denied "
        "(default 300).",
    ),
    click.option(
        "--image",
        "images",
        metavar="FILE",
        multiple=True,
        type=click.Path(path_type=Path),
        help="Attach this image to the task (repeatable): PNG, JPEG, GIF, WebP, BMP or TIFF, downscaled to "
        "1568 px. The model must take images (exit 2 if not).",
    ),
    click.option(
        "--approval-tool",
        metavar="SERVER:TOOL",
        help="Put each approval question to this MCP tool (Claude Code's permission-prompt-tool answers work).",
    ),
)


def headless_values(options: dict[str, Any]) -> dict[str, Any]:
    """The headless options taken out of a command's options (what ``RunRequest`` takes of them)."""
    return {name: options.pop(name) for name in HEADLESS_NAMES}


def first_message(task: str | None, input_format: str, output_format: str) -> str | None:
    """The task to run, or with stream-json input the first message when TASK gives one (else None; misuse: exit 2).

    Without stream-json input a missing TASK is an empty one (which the caller refuses).
    """
    if input_format != "stream-json":
        return task or ""
    if output_format != "stream-json":
        _usage_error("--input-format stream-json answers with events: use it with --output-format stream-json")
    if task == "-":
        _usage_error("with --input-format stream-json, stdin holds the messages: give TASK as text, or leave it out")
    return task


def _usage_error(message: str) -> NoReturn:
    echo(f"hive: {message}", err=True)
    exit_with(2)

"""The ``hive run`` options of the headless contract, as click decorators (no heavy imports here)."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import click

from hive_cli.cli_base import exit_with, options
from hive_cli.terminal_text import echo

INPUT_FORMATS = ("text", "stream-json")

headless_options = options(
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
        metavar="SECONDS",
        type=click.FloatRange(min=0, min_open=True),
        help="With stream-json input: how long an approval question waits for its answer before it is denied "
        "(default 300).",
    ),
)


def check_stream_input(task: str | None, output_format: str) -> str | None:
    """With ``--input-format stream-json``: the first message given as TASK, if any; misuse is exit 2."""
    if output_format != "stream-json":
        _usage_error("--input-format stream-json answers with events: use it with --output-format stream-json")
    if task == "-":
        _usage_error("with --input-format stream-json, stdin holds the messages: give TASK as text, or leave it out")
    return task


def _usage_error(message: str) -> NoReturn:
    echo(f"hive: {message}", err=True)
    exit_with(2)

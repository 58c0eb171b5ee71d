"""The ``hive run`` options of the headless contract, as click decorators (no heavy imports here)."""

from __future__ import annotations

from pathlib import Path

import click

from hive_cli.cli_base import options

headless_options = options(
    click.option(
        "--output-schema",
        metavar="FILE",
        type=click.Path(path_type=Path),
        help="A JSON Schema the final answer must be valid against; asked once more if not, then exit 4.",
    ),
)

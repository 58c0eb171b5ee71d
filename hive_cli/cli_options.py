"""The options several hive commands share, as click decorators, and their conversions to engine values."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import click

from hive_cli.cli_base import options

if TYPE_CHECKING:
    from engine.events import WorkingMode
    from engine.sandbox.options import SandboxMode

MODES = ("plan", "work")
SANDBOX_CHOICES = ("workspace-write", "read-only", "off")
REPORT_FORMATS = ("text", "json")


def positive(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """A click callback: 1 or more."""
    if value is not None and value < 1:
        raise click.BadParameter("must be 1 or more")
    return value


cwd_option = click.option(
    "--cwd",
    "-C",
    metavar="DIR",
    type=click.Path(path_type=Path),
    help="Work in this directory instead of the current one.",
)
sandbox_option = click.option(
    "--sandbox",
    type=click.Choice(SANDBOX_CHOICES),
    help="workspace-write: commands write only inside the project; read-only: nowhere; off: no sandbox. "
    "Default: the settings' sandbox, else workspace-write.",
)
model_option = click.option(
    "--model", "-m", metavar="MODEL", help="litellm model string, e.g. openai/gpt-4o. Env: HIVE_MODEL."
)
api_base_option = click.option("--api-base", metavar="URL", help="Base URL of the model API. Env: HIVE_API_BASE.")
api_key_option = click.option("--api-key", metavar="KEY", help="API key. Env: HIVE_API_KEY or the provider's own.")
mode_option = click.option(
    "--mode", type=click.Choice(MODES), help="plan: read-only tools; work: all tools (default: settings, else work)."
)
yes_option = click.option(
    "--yes",
    "-y",
    is_flag=True,
    help=(
        "Answer every approval request with allow (Deny still denies; changes to hive's configuration, "
        "git hooks and agent instructions need a person and are refused)."
    ),
)
max_turns_option = click.option(
    "--max-turns", metavar="N", type=int, callback=positive, help="Stop after N model turns (1 or more)."
)
continue_option = click.option(
    "--continue", "-c", "continue_last", is_flag=True, help="Continue this directory's last session."
)
resume_option = click.option("--resume", "-r", metavar="ID", help="Continue the session with this id.")
fork_option = click.option(
    "--fork", metavar="ID", help="Start a new session from a copy of session ID's history (ID stays as it was)."
)
debug_option = click.option("--debug", is_flag=True, help="Show tracebacks for internal errors.")
elicitation_option = click.option(
    "--elicitation",
    type=click.Choice(("ask", "decline", "defaults")),
    default="decline",
    show_default=True,
    help="A server's request for a value from you (MCP elicitation): decline it (and say so on stderr); "
    "defaults: accept a form whose every required field has a default, with the defaults (else decline); "
    "ask: show the form at a terminal (declined where there is none, or with --yes).",
)
format_option = click.option(
    "--format", "output_format", type=click.Choice(REPORT_FORMATS), default="text", help="text or json."
)

model_options = options(model_option, api_base_option, api_key_option)
"""``--model``, ``--api-base`` and ``--api-key``: every command that talks to a model takes them."""

session_options = options(model_options, cwd_option, mode_option, yes_option, max_turns_option, sandbox_option)
"""The options of a working session, ``hive`` and ``hive run`` alike."""


def session_values(flags: dict[str, Any]) -> dict[str, Any]:
    """The session's options (``session_options``, ``--continue``, ``--resume``) as the engine takes them; not ``--cwd``."""
    return {
        "model": flags["model"],
        "api_base": flags["api_base"],
        "api_key": flags["api_key"],
        "mode": working_mode(flags["mode"]),
        "yes": flags["yes"],
        "max_turns": flags["max_turns"],
        "sandbox": sandbox_mode(flags["sandbox"]),
        "continue_last": flags["continue_last"],
        "resume": flags["resume"],
    }


def working_mode(mode: str | None) -> WorkingMode | None:
    """The engine's mode for the --mode choice."""
    return None if mode is None else cast("WorkingMode", mode)


def sandbox_mode(choice: str | None) -> SandboxMode | None:
    """The engine's sandbox mode for the --sandbox choice."""
    return None if choice is None else cast("SandboxMode", choice)

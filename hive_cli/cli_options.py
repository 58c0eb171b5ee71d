"""The options several hive commands share, as typer annotations, and their conversions to engine values."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from engine.events import WorkingMode
    from engine.sandbox.options import SandboxMode


class OutputFormat(StrEnum):
    """How ``hive run`` reports."""

    text = "text"
    json = "json"
    stream_json = "stream-json"


class Mode(StrEnum):
    """Plan (read-only tools) or work (all tools, each judged)."""

    plan = "plan"
    work = "work"


class SandboxChoice(StrEnum):
    """How shell commands are confined."""

    workspace_write = "workspace-write"
    read_only = "read-only"
    off = "off"


SandboxOpt = Annotated[
    SandboxChoice | None,
    typer.Option(
        "--sandbox",
        help="workspace-write: commands write only inside the project; read-only: nowhere; off: no sandbox. "
        "Default: the settings' sandbox, else workspace-write.",
    ),
]
ModelOpt = Annotated[
    str | None,
    typer.Option("--model", "-m", metavar="MODEL", help="litellm model string, e.g. openai/gpt-4o. Env: HIVE_MODEL."),
]
ApiBaseOpt = Annotated[
    str | None, typer.Option("--api-base", metavar="URL", help="Base URL of the model API. Env: HIVE_API_BASE.")
]
ApiKeyOpt = Annotated[
    str | None, typer.Option("--api-key", metavar="KEY", help="API key. Env: HIVE_API_KEY or the provider's own.")
]
CwdOpt = Annotated[
    Path | None, typer.Option("--cwd", "-C", metavar="DIR", help="Work in this directory instead of the current one.")
]
ModeOpt = Annotated[
    Mode | None, typer.Option("--mode", help="plan: read-only tools; work: all tools (default: settings, else work).")
]
CheckModeOpt = Annotated[Mode, typer.Option("--mode", help="plan: read-only tools; work: all tools.")]
YesOpt = Annotated[
    bool, typer.Option("--yes", "-y", help="Answer every approval request with allow (Deny still denies).")
]


def positive(value: int | None) -> int | None:
    """A typer callback: 1 or more."""
    if value is not None and value < 1:
        raise typer.BadParameter("must be 1 or more")
    return value


MaxTurnsOpt = Annotated[
    int | None,
    typer.Option("--max-turns", metavar="N", callback=positive, help="Stop after N model turns (1 or more)."),
]
ContinueOpt = Annotated[bool, typer.Option("--continue", "-c", help="Continue this directory's last session.")]
ResumeOpt = Annotated[
    str | None, typer.Option("--resume", "-r", metavar="ID", help="Continue the session with this id.")
]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show tracebacks for internal errors.")]


def working_mode(mode: Mode | None) -> WorkingMode | None:
    """The engine's mode for the --mode choice."""
    return None if mode is None else ("plan" if mode is Mode.plan else "work")


def sandbox_mode(choice: SandboxChoice | None) -> SandboxMode | None:
    """The engine's sandbox mode for the --sandbox choice."""
    modes: dict[SandboxChoice, SandboxMode] = {
        SandboxChoice.workspace_write: "workspace-write",
        SandboxChoice.read_only: "read-only",
        SandboxChoice.off: "off",
    }
    return None if choice is None else modes[choice]

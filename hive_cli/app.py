"""hive's commands. Signatures only: the work (and every heavy import) happens inside the command bodies."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from engine import __version__
from hive_cli.checkpoints_app import checkpoints_app, undo_command
from hive_cli.cli_options import (
    ApiBaseOpt,
    ApiKeyOpt,
    CheckModeOpt,
    ContinueOpt,
    CwdOpt,
    DebugOpt,
    MaxTurnsOpt,
    Mode,
    ModelOpt,
    ModeOpt,
    OutputFormat,
    ResumeOpt,
    SandboxChoice,
    SandboxOpt,
    YesOpt,
    sandbox_mode,
    working_mode,
)
from hive_cli.errors import exit_on_error
from hive_cli.mcp_app import mcp_app
from hive_cli.research_app import research_command

if TYPE_CHECKING:
    pass

app = typer.Typer(
    name="hive",
    help="hive: a terminal coding agent that is fast to start, calm to watch and honest about what it did and cost.",
    no_args_is_help=False,
    rich_markup_mode=None,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
sessions_app = typer.Typer(help="List saved sessions.", no_args_is_help=True)
app.add_typer(sessions_app, name="sessions")
skills_app = typer.Typer(
    help="Agent Skills: validate them as the reference validator does, list what hive finds.", no_args_is_help=True
)
app.add_typer(skills_app, name="skills")
permissions_app = typer.Typer(help="Ask the permission rules about a call, or print them.", no_args_is_help=True)
app.add_typer(permissions_app, name="permissions")
sandbox_app = typer.Typer(help="The OS sandbox around shell commands.", no_args_is_help=True)
app.add_typer(sandbox_app, name="sandbox")
app.add_typer(mcp_app, name="mcp")
app.add_typer(checkpoints_app, name="checkpoints")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"hive {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    version: Annotated[
        bool, typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
    continue_last: ContinueOpt = False,
    resume: ResumeOpt = None,
    model: ModelOpt = None,
    api_base: ApiBaseOpt = None,
    api_key: ApiKeyOpt = None,
    cwd: CwdOpt = None,
    mode: ModeOpt = None,
    yes: YesOpt = False,
    max_turns: MaxTurnsOpt = None,
    sandbox: SandboxOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Start the interactive REPL, or run one of the commands below."""
    if ctx.invoked_subcommand is not None:
        return
    if not sys.stdin.isatty():
        _run_piped_task(ctx, model, api_base, api_key, cwd, mode, yes, max_turns, sandbox, continue_last, resume, debug)
        return
    with exit_on_error(debug):
        from hive_cli.repl.main import run_repl
        from hive_cli.repl.state import ReplOptions
        from hive_cli.workdir import resolve_cwd

        options = ReplOptions(
            cwd=resolve_cwd(cwd),
            model=model,
            api_base=api_base,
            api_key=api_key,
            mode=working_mode(mode),
            yes=yes,
            max_turns=max_turns,
            sandbox=sandbox_mode(sandbox),
            continue_last=continue_last,
            resume=resume,
        )
        raise typer.Exit(run_repl(options))


@app.command()
def run(
    ctx: typer.Context,
    task: Annotated[str, typer.Argument(metavar="TASK", help="What hive should do. Give - to read it from stdin.")],
    output_format: Annotated[
        OutputFormat, typer.Option("--output-format", "-o", help="text, json (one object) or stream-json (JSONL).")
    ] = OutputFormat.text,
    model: ModelOpt = None,
    api_base: ApiBaseOpt = None,
    api_key: ApiKeyOpt = None,
    cwd: CwdOpt = None,
    mode: ModeOpt = None,
    yes: YesOpt = False,
    max_turns: MaxTurnsOpt = None,
    sandbox: SandboxOpt = None,
    continue_last: ContinueOpt = False,
    resume: ResumeOpt = None,
    plan: Annotated[
        bool, typer.Option("--plan", help="Plan the task into steps first, then run them one by one (text output).")
    ] = False,
    debug: DebugOpt = False,
) -> None:
    """Run one task to completion and exit (scriptable)."""
    task = task if ctx.meta.get(_PIPED_TASK) else _task_text(task)
    with exit_on_error(debug):
        from hive_cli.run_command import RunRequest, run_task

        request = RunRequest(
            task=task,
            output_format=output_format.value,
            model=model,
            api_base=api_base,
            api_key=api_key,
            cwd=cwd,
            mode=working_mode(mode),
            yes=yes,
            max_turns=max_turns,
            sandbox=sandbox_mode(sandbox),
            continue_last=continue_last,
            resume=resume,
            plan=plan,
        )
        raise typer.Exit(run_task(request))


_PIPED_TASK = "hive.piped_task"


app.command("research")(research_command)


@sessions_app.command("list")
def sessions_list(
    cwd: CwdOpt = None,
    all_projects: Annotated[
        bool, typer.Option("--all", help="Sessions of every directory, not just this one.")
    ] = False,
) -> None:
    """List saved sessions, newest first."""
    with exit_on_error(False):
        from hive_cli.sessions_command import list_sessions

        list_sessions(cwd, all_projects)


app.command("undo")(undo_command)


SkillPathsArg = Annotated[
    list[Path],
    typer.Argument(exists=True, metavar="SKILL_PATH", help="Skill folders (or their SKILL.md files)."),
]


@skills_app.command("validate")
def skills_validate(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            exists=True,
            metavar="SKILL_PATH",
            help="Skill folders (or their SKILL.md files). Without any: every skill hive finds, as a table.",
        ),
    ] = None,
    cwd: CwdOpt = None,
) -> None:
    """Validate skills exactly as the reference validator (skills-ref) does; exit 1 if any is invalid."""
    with exit_on_error(False):
        from hive_cli import skills_command

        if paths:
            raise typer.Exit(skills_command.validate_paths(paths))
        raise typer.Exit(skills_command.validate_discovered(skills_command.working_directory(cwd)))


@skills_app.command("list")
def skills_list(cwd: CwdOpt = None) -> None:
    """List the skills hive finds: name, root, status (ok, dropped, disabled, shadowed, invalid), description."""
    with exit_on_error(False):
        from hive_cli import skills_command

        raise typer.Exit(skills_command.list_skills(skills_command.working_directory(cwd)))


@skills_app.command("read-properties")
def skills_read_properties(
    path: Annotated[Path, typer.Argument(exists=True, metavar="SKILL_PATH", help="A skill folder or its SKILL.md.")],
) -> None:
    """Print a skill's frontmatter properties as JSON (no validation)."""
    with exit_on_error(False):
        from hive_cli import skills_command

        raise typer.Exit(skills_command.print_properties(path))


@skills_app.command("to-prompt")
def skills_to_prompt(paths: SkillPathsArg) -> None:
    """Print the <available_skills> XML block for the given skills."""
    with exit_on_error(False):
        from hive_cli import skills_command

        raise typer.Exit(skills_command.print_prompt(paths))


class ReportFormat(StrEnum):
    """Plain text for people, JSON for scripts."""

    text = "text"
    json = "json"


FormatOpt = Annotated[ReportFormat, typer.Option("--format", help="text or json.")]


@permissions_app.command("check")
def permissions_check(
    tool: Annotated[str, typer.Argument(help="Tool name (execute_command, write_file, ...) or bash/read/write/edit.")],
    arguments: Annotated[
        list[str] | None,
        typer.Argument(metavar="[KEY=VALUE]...", help="The call's arguments; bare words are its command or path."),
    ] = None,
    cwd: CwdOpt = None,
    mode: CheckModeOpt = Mode.work,
    sandbox: SandboxOpt = None,
    output_format: FormatOpt = ReportFormat.text,
) -> None:
    """Print the verdict (allow, ask, deny) on one call, the rule that decided it, its file, the reason and the sandbox."""
    with exit_on_error(False):
        from hive_cli.permissions_command import check
        from hive_cli.workdir import resolve_cwd

        check(tool, arguments or [], resolve_cwd(cwd), mode.value, output_format.value, sandbox_mode(sandbox))


@permissions_app.command("show")
def permissions_show(
    cwd: CwdOpt = None, sandbox: SandboxOpt = None, output_format: FormatOpt = ReportFormat.text
) -> None:
    """Print the rules in force here, the file each came from, and the sandbox."""
    with exit_on_error(False):
        from hive_cli.permissions_command import show
        from hive_cli.workdir import resolve_cwd

        show(resolve_cwd(cwd), output_format.value, sandbox_mode(sandbox))


@sandbox_app.command("check")
def sandbox_check(cwd: CwdOpt = None, sandbox: SandboxOpt = None, output_format: FormatOpt = ReportFormat.text) -> None:
    """Start the sandbox here and try what it must stop (writes outside, ~/.ssh, network, secrets); exit 1 if any holds not."""
    with exit_on_error(False):
        from hive_cli.sandbox_command import check
        from hive_cli.workdir import resolve_cwd

        raise typer.Exit(check(resolve_cwd(cwd), sandbox_mode(sandbox), output_format.value))


def _task_text(task: str) -> str:
    """The task to run: ``-`` reads it from stdin; an empty one is a usage error (exit 2), never sent to the model."""
    if task == "-":
        task = sys.stdin.read().strip()
        if not task:
            _usage_error("hive: the task is - but stdin holds no task (pipe one in, or give it as TASK)")
    elif not task.strip():
        _usage_error('hive: the task is empty (give one: hive run "TASK", or hive run - to read it from stdin)')
    return task


def _usage_error(message: str) -> NoReturn:
    typer.echo(message, err=True)
    raise typer.Exit(2)


def _run_piped_task(
    ctx: typer.Context,
    model: str | None,
    api_base: str | None,
    api_key: str | None,
    cwd: Path | None,
    mode: Mode | None,
    yes: bool,
    max_turns: int | None,
    sandbox: SandboxChoice | None,
    continue_last: bool,
    resume: str | None,
    debug: bool,
) -> None:
    """``echo "task" | hive``: with no terminal to talk to, the piped text is one task, as ``hive run`` runs it."""
    task = sys.stdin.read().strip()
    if not task:
        typer.echo('hive: stdin is not a terminal and holds no task (pipe one in, or use hive run "TASK")', err=True)
        raise typer.Exit(2)
    ctx.meta[_PIPED_TASK] = True  # the text is the task itself, even a lone "-": stdin is already read
    ctx.invoke(
        run,
        ctx=ctx,
        task=task,
        model=model,
        api_base=api_base,
        api_key=api_key,
        cwd=cwd,
        mode=mode,
        yes=yes,
        max_turns=max_turns,
        sandbox=sandbox,
        continue_last=continue_last,
        resume=resume,
        debug=debug,
    )


def run_app() -> None:
    """Run the Typer app, with arguments shown in help as people write them (``TASK``, not ``{task} <str>``)."""
    command = typer.main.get_command(app)
    _plain_arguments(command)
    command()


def _plain_arguments(command: Any) -> None:
    for param in command.params:
        if param.param_type_name == "argument":
            shown = param.metavar or (param.name or "").upper()
            usage = shown if param.required or shown.startswith("[") else f"[{shown}]"
            usage += "..." if param.nargs != 1 and not usage.endswith("...") else ""
            # Typer adds braces and a type to arguments; the argument's own metavar says enough.
            param.display_type_rich = lambda ctx: None
            param._usage_display_name = lambda usage=usage: usage
            param.metavar = shown
    for sub in getattr(command, "commands", {}).values():
        _plain_arguments(sub)

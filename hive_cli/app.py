"""hive's commands. Signatures only: the work (and every heavy import) happens inside the command bodies."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from engine import __version__
from hive_cli import collection
from hive_cli.cli_base import HiveGroup, exit_with
from hive_cli.cli_options import (
    MODES,
    continue_option,
    cwd_option,
    debug_option,
    elicitation_option,
    fork_option,
    format_option,
    resume_option,
    sandbox_mode,
    sandbox_option,
    session_options,
    session_values,
)
from hive_cli.errors import exit_on_error
from hive_cli.headless.options import first_message, headless_options, headless_values
from hive_cli.terminal_text import echo

if TYPE_CHECKING:
    from engine.mcp.elicitation_question import ElicitationMode

OUTPUT_FORMATS = ("text", "json", "stream-json")
PIPED_ONLY = "(a task piped into bare hive, as hive run takes it)"

output_format_option = click.option(
    "--output-format",
    "-o",
    type=click.Choice(OUTPUT_FORMATS),
    default="text",
    show_default=True,
    help="text, json (one object) or stream-json (JSONL).",
)
plan_option = click.option(
    "--plan", is_flag=True, help="Plan the task into steps first, then run them one by one (text output)."
)
trust_project_option = click.option(
    "--trust-project",
    is_flag=True,
    help="Trust the project's own configuration for this run only (not saved; see hive trust). --yes never does.",
)


@click.group(
    cls=HiveGroup,
    name="hive",
    invoke_without_command=True,
    help="hive: a terminal coding agent that is fast to start, calm to watch and honest about what it did and cost.",
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, "--version", "-V", message="hive %(version)s", help="Print the version and exit.")
@continue_option
@resume_option
@session_options
@click.option("--output-format", "-o", type=click.Choice(OUTPUT_FORMATS), help=f"As hive run's {PIPED_ONLY}.")
@click.option("--plan", is_flag=True, help=f"As hive run's {PIPED_ONLY}.")
@click.option("--trust-project", is_flag=True, help=f"As hive run's {PIPED_ONLY}.")
@debug_option
@click.pass_context
def app(
    ctx: click.Context,
    /,
    debug: bool,
    output_format: str | None,
    plan: bool,
    trust_project: bool,
    **session: Any,
) -> None:
    """Start the interactive REPL, or run one of the commands below."""
    _keep_model_lookups()
    _check_resume_choice(session)
    if ctx.invoked_subcommand is not None:
        if ctx.invoked_subcommand != "run":  # hive run resumes collection once its session is open
            collection.resume()
        return
    if not sys.stdin.isatty():
        _run_piped_task(debug, session, output_format or "text", plan=plan, trust_project=trust_project)
    if output_format is not None or plan or trust_project:
        _usage_error("hive: --output-format, --plan and --trust-project apply to a task: pipe one in, or use hive run")
    with exit_on_error(debug):
        from hive_cli.repl.main import run_repl
        from hive_cli.repl.state import ReplOptions
        from hive_cli.workdir import resolve_cwd

        exit_with(run_repl(ReplOptions(cwd=resolve_cwd(session["cwd"]), **session_values(session))))


@app.command()
@click.argument(
    "task",
    metavar="TASK",
    required=False,
    help="What hive should do. Give - to read it from stdin. Optional with --input-format stream-json.",
)
@output_format_option
@session_options
@continue_option
@resume_option
@fork_option
@plan_option
@trust_project_option
@elicitation_option
@headless_options
@debug_option
def run(
    task: str | None,
    output_format: str,
    fork: str | None,
    plan: bool,
    trust_project: bool,
    elicitation: ElicitationMode,
    debug: bool,
    **session: Any,
) -> None:
    """Run one task to completion and exit (scriptable)."""
    _check_resume_choice(session)
    if fork is not None and (session["continue_last"] or session["resume"] is not None):
        _usage_error("hive: --fork starts a new session from another: give it without --continue or --resume")
    headless = headless_values(session)
    task = first_message(task, headless["input_format"], output_format)
    _run_task(
        "" if task is None else _task_text(task),
        output_format,
        plan,
        debug,
        session,
        trust_project=trust_project,
        elicitation=elicitation,
        headless=headless,
        fork=fork,
    )


def _keep_model_lookups() -> None:
    """The model table's entries this run looks up, the servers' dialects it learns and what servers said of their
    models are kept for the next run, in the user cache folder."""
    from engine.model import dialect_memory, model_table, served_facts
    from engine.paths import user_cache_dir

    model_table.keep_lookups(user_cache_dir)
    dialect_memory.keep_in(user_cache_dir)
    served_facts.keep_facts(user_cache_dir)


def _run_task(
    task: str,
    output_format: str,
    plan: bool,
    debug: bool,
    session: dict[str, Any],
    *,
    trust_project: bool = False,
    elicitation: ElicitationMode = "decline",
    headless: dict[str, Any] | None = None,
    fork: str | None = None,
) -> NoReturn:
    with exit_on_error(debug):
        from hive_cli.run_command import RunRequest, run_task

        request = RunRequest(
            task=task,
            output_format=output_format,
            cwd=session["cwd"],
            plan=plan,
            trust_project=trust_project,
            elicitation=elicitation,
            **(headless or {}),
            fork=fork,
            **session_values(session),
        )
        exit_with(run_task(request))


def _run_piped_task(
    debug: bool, session: dict[str, Any], output_format: str, *, plan: bool, trust_project: bool
) -> NoReturn:
    """``echo "task" | hive``: with no terminal to talk to, the piped text is one task, as ``hive run`` runs it.

    The text is the task itself, even a lone ``-``: stdin is already read.
    """
    task = sys.stdin.read().strip()
    if not task:
        _usage_error('hive: stdin is not a terminal and holds no task (pipe one in, or use hive run "TASK")')
    _run_task(_utf8(task), output_format, plan, debug, session, trust_project=trust_project)


def _check_resume_choice(session: dict[str, Any]) -> None:
    """``--continue`` and ``--resume ID`` each name the session to continue: both at once is a usage error."""
    if session["continue_last"] and session["resume"] is not None:
        _usage_error("hive: --continue and --resume name the session to continue in two ways: give one of them")


app.add_lazy_command("research", "hive_cli.research_app:research_command")
app.add_lazy_command("acp", "hive_cli.acp.command:acp_command")
app.add_lazy_command("batch", "hive_cli.batch.command:batch_command")


@app.command("models")
@click.argument("model", required=False)
def models(model: str | None) -> None:
    """What hive learned about the models local servers serve: the window, where from, when."""
    with exit_on_error(False):
        from hive_cli.models_command import show_models

        exit_with(show_models(model))


app.add_lazy_command("sessions", "hive_cli.sessions_app:sessions_app")
app.add_lazy_command("undo", "hive_cli.checkpoints_app:undo_command")
app.add_lazy_command("trust", "hive_cli.trust_app:trust_command")


@app.group("skills", no_args_is_help=True)
def skills_app() -> None:
    """Agent Skills: validate them as the reference validator does, list what hive finds."""


EXISTING_PATH = click.Path(exists=True, path_type=Path)


@skills_app.command("validate")
@click.argument(
    "paths",
    metavar="[SKILL_PATH]...",
    nargs=-1,
    type=EXISTING_PATH,
    help="Skill folders (or their SKILL.md files). Without any: every skill hive finds, as a table.",
)
@cwd_option
def skills_validate(paths: tuple[Path, ...], cwd: Path | None) -> None:
    """Validate skills exactly as the reference validator (skills-ref) does; exit 1 if any is invalid."""
    with exit_on_error(False):
        from hive_cli import skills_command

        if paths:
            exit_with(skills_command.validate_paths(paths))
        exit_with(skills_command.validate_discovered(skills_command.working_directory(cwd)))


@skills_app.command("list")
@cwd_option
def skills_list(cwd: Path | None) -> None:
    """List the skills hive finds: name, root, status (ok, dropped, disabled, shadowed, invalid), description."""
    with exit_on_error(False):
        from hive_cli import skills_command

        exit_with(skills_command.list_skills(skills_command.working_directory(cwd)))


@skills_app.command("read-properties")
@click.argument("path", metavar="SKILL_PATH", type=EXISTING_PATH, help="A skill folder or its SKILL.md.")
def skills_read_properties(path: Path) -> None:
    """Print a skill's frontmatter properties as JSON (no validation)."""
    with exit_on_error(False):
        from hive_cli import skills_command

        exit_with(skills_command.print_properties(path))


@skills_app.command("to-prompt")
@click.argument(
    "paths",
    metavar="SKILL_PATH...",
    nargs=-1,
    required=True,
    type=EXISTING_PATH,
    help="Skill folders (or their SKILL.md files).",
)
def skills_to_prompt(paths: tuple[Path, ...]) -> None:
    """Print the <available_skills> XML block for the given skills."""
    with exit_on_error(False):
        from hive_cli import skills_command

        exit_with(skills_command.print_prompt(paths))


@app.group("permissions", no_args_is_help=True)
def permissions_app() -> None:
    """Ask the permission rules about a call, or print them."""


@permissions_app.command("check")
@click.argument("tool", metavar="TOOL", help="Tool name (execute_command, write_file, ...) or bash/read/write/edit.")
@click.argument(
    "arguments",
    metavar="[KEY=VALUE]...",
    nargs=-1,
    help="The call's arguments; bare words are its command or path.",
)
@cwd_option
@click.option(
    "--mode",
    type=click.Choice(MODES),
    default="work",
    show_default=True,
    help="plan: read-only tools; work: all tools.",
)
@sandbox_option
@format_option
def permissions_check(
    tool: str, arguments: tuple[str, ...], cwd: Path | None, mode: str, sandbox: str | None, output_format: str
) -> None:
    """Print the verdict (allow, ask, deny) on one call, the rule that decided it, its file, the reason and the sandbox."""
    with exit_on_error(False):
        from hive_cli.permissions_command import check
        from hive_cli.workdir import resolve_cwd

        check(tool, list(arguments), resolve_cwd(cwd), mode, output_format, sandbox_mode(sandbox))


@permissions_app.command("show")
@cwd_option
@sandbox_option
@format_option
def permissions_show(cwd: Path | None, sandbox: str | None, output_format: str) -> None:
    """Print the rules in force here, the file each came from, and the sandbox."""
    with exit_on_error(False):
        from hive_cli.permissions_command import show
        from hive_cli.workdir import resolve_cwd

        show(resolve_cwd(cwd), output_format, sandbox_mode(sandbox))


@app.group("sandbox", no_args_is_help=True)
def sandbox_app() -> None:
    """The OS sandbox around shell commands."""


@sandbox_app.command("check")
@cwd_option
@sandbox_option
@format_option
def sandbox_check(cwd: Path | None, sandbox: str | None, output_format: str) -> None:
    """Start the sandbox here and try what it must stop (writes outside, ~/.ssh, network, secrets); exit 1 if any holds not."""
    with exit_on_error(False):
        from hive_cli.sandbox_command import check
        from hive_cli.workdir import resolve_cwd

        exit_with(check(resolve_cwd(cwd), sandbox_mode(sandbox), output_format))


app.add_lazy_command("mcp", "hive_cli.mcp_app:mcp_app")
app.add_lazy_command("checkpoints", "hive_cli.checkpoints_app:checkpoints_app")


def _task_text(task: str) -> str:
    """The task to run: ``-`` reads it from stdin; an empty one is a usage error (exit 2), never sent to the model."""
    if task == "-":
        task = sys.stdin.read().strip()
        if not task:
            _usage_error("hive: the task is - but stdin holds no task (pipe one in, or give it as TASK)")
    elif not task.strip():
        _usage_error('hive: the task is empty (give one: hive run "TASK", or hive run - to read it from stdin)')
    return _utf8(task)


def _utf8(task: str) -> str:
    """The task, when it is text: bytes that are not UTF-8 (kept by Python as surrogates) are a usage error."""
    try:
        task.encode("utf-8")
    except UnicodeEncodeError as error:
        at = error.start
        _usage_error(f"hive: the task is not UTF-8 text (an undecodable byte at character {at + 1}): give it as UTF-8")
    return task


def _usage_error(message: str) -> NoReturn:
    echo(message, err=True)
    exit_with(2)


def run_app() -> None:
    """Run hive's command line (``sys.argv``)."""
    app.main(prog_name="hive")

"""``hive run``: resolve the configuration, open a session, drive one task, report, and pick the exit status."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct
from msgspec.structs import replace

from engine.agent import check_model_keys, needs_litellm
from engine.config.loader import Overrides, SessionConfig, load_config
from engine.errors import UserError
from engine.events import ExitReason, RunFinished, RunResult, WorkingMode
from engine.mcp.elicitation_question import ElicitationMode
from engine.model import litellm_import
from engine.model.model_check import check_provider_named
from engine.paths import scratch_dir, user_data_dir
from engine.policy.gate import ApproveEverything, Approver
from engine.sandbox.options import SandboxMode
from engine.session import Session
from engine.session_open import open_session
from engine.session_store import LoadedSession, SessionStore
from engine.sessions.copies import default_scrub, discard_unopened, fork_session
from engine.workspace import open_workspace
from hive_cli import collection
from hive_cli.elicitation_notes import notes_on_stderr, session_with_elicitation
from hive_cli.errors import EXIT_INTERRUPTED
from hive_cli.headless.tool_approver import McpToolApprover
from hive_cli.image_files import attach_files
from hive_cli.interrupts import Ending, cancel_on_ctrl_c
from hive_cli.output import Renderer, RunInfo, make_renderer
from hive_cli.terminal_text import echo
from hive_cli.workdir import resolve_cwd

if TYPE_CHECKING:
    from hive_cli.headless.inbox import Inbox
    from hive_cli.headless.output_schema import OutputSchema

EXIT_CODES: dict[ExitReason, int] = {
    "completed": 0,
    "pending_tool_calls": 0,
    "error": 1,
    "max_turns": 3,
    "usage_limit": 3,
    "cancelled": EXIT_INTERRUPTED,
}


class RunRequest(Struct, frozen=True, kw_only=True):
    """The ``hive run`` command line, parsed."""

    task: str
    output_format: str
    model: str | None
    api_base: str | None
    api_key: str | None
    cwd: Path | None
    mode: WorkingMode | None
    yes: bool
    max_turns: int | None
    sandbox: SandboxMode | None = None
    continue_last: bool = False
    """Continue this directory's last session (``--continue``)."""
    resume: str | None = None
    """Continue the session with this id (``--resume ID``)."""
    plan: bool = False
    """Plan the task into steps first, then run them one by one (``--plan``)."""
    trust_project: bool = False
    """Trust the project's configuration for this run only (``--trust-project``)."""
    elicitation: ElicitationMode = "decline"
    """How the servers' requests for a value from the person are answered (``--elicitation``)."""
    output_schema: Path | None = None
    """A JSON Schema the final answer must be valid against (``--output-schema``)."""
    input_format: str = "text"
    """``stream-json``: the conversation's messages and approval answers come as JSON lines on stdin."""
    approval_timeout_s: float | None = None
    """How long a question put over stdin waits for its answer (``--approval-timeout``); None: the default."""
    approval_tool: str | None = None
    """``SERVER:TOOL``: the MCP tool each approval question is put to (``--approval-tool``)."""
    fork: str | None = None
    """Start a new session from a copy of this session's history (``--fork ID``)."""
    images: tuple[Path, ...] = ()
    """Image files sent with the task (``--image``)."""
    max_cost_usd: float | None = None
    """Refuse new model turns once the run has cost this much (``--max-cost-usd``); None: the settings' limit."""

    @property
    def conversation(self) -> bool:
        """Whether stdin carries a conversation (``--input-format stream-json``)."""
        return self.input_format == "stream-json"

    def overrides(self) -> Overrides:
        """What the flags set, for the configuration loader."""
        return Overrides(
            model=self.model,
            api_base=self.api_base,
            api_key=self.api_key,
            mode=self.mode,
            max_turns=self.max_turns,
            sandbox=self.sandbox,
            max_cost_usd=self.max_cost_usd,
        )


def run_task(request: RunRequest) -> int:
    """Run the task and return the exit status (128 + the signal's number when SIGTERM or SIGHUP stopped it)."""
    if request.plan and request.output_format != "text":
        raise UserError("--plan shows its steps as text: use it with --output-format text")
    if request.plan and request.conversation:
        raise UserError("--plan and --input-format stream-json do not go together: a plan runs one task")
    if request.plan and request.images:
        raise UserError("--plan and --image do not go together: a plan's steps are written without the images")
    if request.plan and request.output_schema is not None:
        raise UserError("--plan and --output-schema do not go together: a plan's steps have no single final answer")
    schema = _output_schema(request)
    cwd = resolve_cwd(request.cwd)
    saved = saved_session(request, cwd)
    forked_size = saved.info.path.stat().st_size if saved is not None and request.fork is not None else None
    try:
        return _run_with(request, cwd, saved, schema)
    except BaseException:
        if saved is not None and forked_size is not None:  # refused before it opened: the fork is left unused
            discard_unopened(saved.info.path, forked_size)
        raise
    finally:
        if saved is not None:
            SessionStore(user_data_dir() / "sessions").unclaim(saved.info.id)


def _output_schema(request: RunRequest) -> OutputSchema | None:
    """The ``--output-schema`` read and checked before anything starts (a bad one is exit 2)."""
    if request.output_schema is None:
        return None
    from hive_cli.headless.output_schema import OutputSchema

    return OutputSchema.load(request.output_schema)


def _run_with(request: RunRequest, cwd: Path, saved: LoadedSession | None, schema: OutputSchema | None) -> int:
    config = load_config(open_workspace(cwd, trust_for_run=request.trust_project), request.overrides())
    config = session_with_elicitation(config, request.elicitation)
    check_provider_named(config.model.model, config.model.source, config.model.api_base)  # before litellm's import
    check_model_keys(config)  # so is a missing key
    if needs_litellm(config):
        litellm_import.preload()  # overlaps the import with opening the session
    ending = Ending()
    with notes_on_stderr():
        status = asyncio.run(_run(config, request, saved, ending, schema))
    if ending.received is not None:
        echo(f"hive: stopped by {ending.received.name}", err=True)
    return ending.exit_status or status


def saved_session(request: RunRequest, cwd: Path) -> LoadedSession | None:
    """The saved session ``--resume ID`` or ``--continue`` names, or the fork ``--fork ID`` makes, claimed for this process.

    ``UserError`` when there is none; ``SessionBusy`` (exit 2) when another process is writing it.
    """
    store = SessionStore(user_data_dir() / "sessions")
    if request.fork is not None:
        return store.claim(fork_session(store, request.fork, default_scrub()).id)
    if request.resume is None and not request.continue_last:
        return None
    session_id = request.resume
    if session_id is None:
        latest = store.latest(cwd)
        if latest is None:
            raise UserError(f"no saved session for {cwd} to continue (hive sessions list --all shows them all)")
        session_id = latest.id
    return store.claim(session_id)  # held until the process ends: another one is refused (exit 2)


async def _run(
    config: SessionConfig, request: RunRequest, saved: LoadedSession | None, ending: Ending, schema: OutputSchema | None
) -> int:
    inbox = _inbox(request)
    approver = _approver(request, inbox, config.cwd)
    session = await open_session(config, approver=approver, title=request.task, resume=saved)
    if saved is not None:
        session.answer_unanswered("Interrupted: hive stopped before this call ended.")
    try:
        mcp_notices = await session.wait_for_mcp()
        if isinstance(approver, McpToolApprover):
            approver.attach(session.mcp)
        collection.resume()
        info = RunInfo(
            session_id=session.id,
            model=session.model,
            cwd=str(config.cwd),
            mode=session.mode,
            sandbox=session.sandbox,
            notices=(*session.notices, *mcp_notices),
        )
        renderer = make_renderer(request.output_format, info)
        _say_trust_on_stderr(config, request.output_format)
        notes = await attach_files(session, request.images, config.cwd, allow_asks=request.yes)
        request = replace(request, task=request.task + notes) if notes else request
        if request.plan:
            from hive_cli.run_plan import drive_plan

            return await drive_plan(session, request.task, renderer, ending, EXIT_CODES)
        if inbox is not None:
            return await _converse(session, request, renderer, inbox, ending, schema)
        if schema is not None:
            return await _drive_structured(session, request.task, schema, renderer, ending)
        result = await _drive(session, request.task, renderer, ending)
        return EXIT_CODES[result.exit_reason]
    finally:
        await session.close()


def _say_trust_on_stderr(config: SessionConfig, output_format: str) -> None:
    """With json output the notices go into the JSON; which project was taken and what it asked for in vain
    go to stderr too, where a person running the script sees them."""
    trust = config.trust
    if trust is None or output_format == "text":
        return
    for notice in (trust.workspace.root_notice(), trust.notice()):
        if notice:
            echo(f"hive: {notice}", err=True)


def _inbox(request: RunRequest) -> Inbox | None:
    """Where stdin's messages and approval answers go, with stream-json input."""
    if not request.conversation:
        return None
    from hive_cli.headless.inbox import Inbox

    return Inbox()


def _approver(request: RunRequest, inbox: Inbox | None, cwd: Path) -> Approver | None:
    """--yes allows every ask; --approval-tool asks an MCP tool; with stream-json input the program on stdin is
    asked; at a terminal (text output) the person is asked; otherwise nobody can answer."""
    if request.yes:
        return ApproveEverything()
    if request.approval_tool is not None:
        return McpToolApprover(request.approval_tool, cwd, scratch_dir(cwd))
    if inbox is not None:
        from hive_cli.headless.stdin_approver import DEFAULT_APPROVAL_TIMEOUT_S, StdinApprover

        return StdinApprover(inbox, request.approval_timeout_s or DEFAULT_APPROVAL_TIMEOUT_S)
    if request.output_format == "text" and sys.stdin.isatty() and sys.stderr.isatty():
        from hive_cli.repl.approver import ReplApprover, StderrSurface

        return ReplApprover(StderrSurface())
    return None


async def _drive(session: Session, task: str, renderer: Renderer, ending: Ending) -> RunResult:
    loop = asyncio.get_running_loop()
    started = time.monotonic()
    result: RunResult | None = None
    with cancel_on_ctrl_c(loop, session.cancel), ending.caught(loop, session.cancel):
        async for event in session.run_streaming(task):
            if isinstance(event, RunFinished):
                result = event.result
            renderer.handle(event)
    assert result is not None
    renderer.finish(result, time.monotonic() - started)
    return result


async def _drive_structured(
    session: Session, task: str, schema: OutputSchema, renderer: Renderer, ending: Ending
) -> int:
    from hive_cli.headless.structured_run import run_structured

    loop = asyncio.get_running_loop()
    started = time.monotonic()
    with cancel_on_ctrl_c(loop, session.cancel), ending.caught(loop, session.cancel):
        outcome = await run_structured(session, task, schema, renderer)
    renderer.finish(outcome.result, time.monotonic() - started, outcome.extra)
    return outcome.status if outcome.status is not None else EXIT_CODES[outcome.result.exit_reason]


async def _converse(
    session: Session, request: RunRequest, renderer: Renderer, inbox: Inbox, ending: Ending, schema: OutputSchema | None
) -> int:
    from hive_cli.headless.conversation import converse
    from hive_cli.output.stream_json import StreamJsonRenderer

    assert isinstance(renderer, StreamJsonRenderer)  # the command line asks for stream-json output with this input
    return await converse(session, request.task or None, renderer, inbox, ending, EXIT_CODES, schema)

"""Golden rendering of the REPL's view at a fixed width: events in, text out."""

from __future__ import annotations

import io

from rich.console import Console

from engine import events
from engine.events import (
    ModelTurnStarted,
    RunFinished,
    RunResult,
    RunStarted,
    ScopeInfo,
    TextDelta,
    ToolCall,
    ToolCallFinished,
    ToolCallStarted,
    ToolOutcome,
    Usage,
)
from engine.policy.gate import ApprovalRequest
from engine.reports import UsageReport
from engine.run.recovery import fix_it
from engine.tools.base import ToolSpec
from hive_cli.repl.approver import describe
from hive_cli.repl.view import ReplView

ROOT = ModelTurnStarted(index=0, model="m", scope=ScopeInfo(scope_id="s1", parent_scope_id=None, depth=0))
READ = ToolCall(id="c1", name="read_file", arguments={"path": "src/app.py"})
TEST = ToolCall(id="c2", name="execute_command", arguments={"command": "pytest -q"})
SCOPE = ScopeInfo(scope_id="s2", parent_scope_id="s1", depth=1, label="Calling read_file Tool", tool_kind="tool")
REPORT = UsageReport(
    model="openai/test-model",
    provider="openai",
    assistant=Usage(prompt_tokens=1200, completion_tokens=80, cached_read_tokens=1000, calls=2),
    duration_s=3.25,
)


def render(evts: list[events.Event]) -> str:
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=True, color_system=None, legacy_windows=False)
    view = ReplView(console, live=False)
    for event in evts:
        view.handle(event)
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines())


def test_a_run_renders_markdown_blocks_tool_lines_with_previews_and_a_usage_line() -> None:
    output = render(
        [
            RunStarted(model="m"),
            ROOT,
            TextDelta(text="# Plan\n\nI will "),
            TextDelta(text="read the **file**.\n\n"),
            ToolCallStarted(call=READ, read_only=True, scope=SCOPE),
            ToolCallFinished(
                outcome=ToolOutcome(
                    call=READ,
                    output="     1\tprint('hi')\n     2\tx = 1\n     3\ty = 2\n",
                    success=True,
                    duration_s=0.012,
                ),
                scope=SCOPE,
            ),
            ToolCallStarted(call=TEST, scope=SCOPE),
            ToolCallFinished(
                outcome=ToolOutcome(
                    call=TEST, output="exit code 1\nFAILED test_a.py::test_x", success=False, duration_s=1.5
                )
            ),
            TextDelta(text="Done.\n"),
            RunFinished(result=RunResult(text="Done.", exit_reason="completed", report=REPORT)),
        ]
    )
    assert output == (
        "                                      Plan\n"
        "\n"
        "I will read the file.\n"
        " ✓ read_file src/app.py  0.01s\n"
        "    1  print('hi')\n"
        "    2  x = 1\n"
        "    … +1 lines\n"
        " ✗ execute_command pytest -q  1.50s\n"
        "    exit code 1\n"
        "    FAILED test_a.py::test_x\n"
        "Done.\n"
        "  1,200 in (1,000 cached) / 80 out · not priced · 3.2s"
    )


def test_errors_are_one_line_with_a_hint_and_cancellation_says_so() -> None:
    output = render(
        [
            RunStarted(model="m"),
            events.ErrorEvent(
                category="auth",
                message="the provider refused the credentials: invalid x-api-key",
                fix=fix_it("auth", "OPENAI_API_KEY"),
            ),
            RunFinished(result=RunResult(text="", exit_reason="cancelled")),
        ]
    )
    lines = output.splitlines()
    assert lines[0] == "✗ the provider refused the credentials: invalid x-api-key"
    assert lines[1].startswith("  set OPENAI_API_KEY")
    assert "(cancelled)" in output
    assert "Traceback" not in output


def test_nested_calls_are_indented_under_their_parent() -> None:
    grep = ToolCall(id="n1", name="grep_files", arguments={"pattern": "TODO"})
    inner = ScopeInfo(scope_id="s5", parent_scope_id="s2", depth=2, label="Calling grep_files Tool", tool_kind="tool")
    nested = [
        ToolCallStarted(call=grep, read_only=True, scope=inner),
        ToolCallFinished(
            outcome=ToolOutcome(call=grep, output="a.py:1:# TODO", success=True, duration_s=0.5), scope=inner
        ),
    ]
    output = render([RunStarted(model="m"), *nested])
    assert output == "   ✓ grep_files TODO  0.50s\n      a.py:1:# TODO"


def test_a_delegation_is_shown_as_calling_the_agent_with_its_task() -> None:
    delegated = ToolCall(id="a1", name="agent_explore", arguments={"task": "find the parser"})
    scope = ScopeInfo(scope_id="s6", parent_scope_id="s1", depth=1, label="Calling explore Agent", tool_kind="agent")
    outcome = ToolOutcome(call=delegated, output="src/parse.py", success=True, duration_s=1.5)
    output = render(
        [
            RunStarted(model="m"),
            ToolCallStarted(call=delegated, scope=scope),
            ToolCallFinished(outcome=outcome, scope=scope),
        ]
    )
    assert output.splitlines()[0] == " ✓ Calling explore Agent find the parser  1.50s"


def test_a_nested_runs_model_turn_does_not_end_the_markdown_block_of_the_parent() -> None:
    nested_turn = ModelTurnStarted(
        index=0, model="m", scope=ScopeInfo(scope_id="s9", parent_scope_id="s2", depth=2), agent="explore"
    )
    done = RunFinished(result=RunResult(text="", exit_reason="completed"))
    output = render(
        [RunStarted(model="m"), ROOT, TextDelta(text="Looking "), nested_turn, TextDelta(text="now.\n"), done]
    )
    assert output.splitlines()[0] == "Looking now."


def test_a_call_that_asked_shows_its_run_time_and_apart_the_wait_for_the_person() -> None:
    asked = [
        ToolCallStarted(call=TEST, scope=SCOPE),
        events.ApprovalResolved(call_id=TEST.id, allowed=True, reason="allowed once by the user"),
        ToolCallFinished(
            outcome=ToolOutcome(call=TEST, output="", success=True, duration_s=0.012, waited_s=15.89), scope=SCOPE
        ),
    ]
    assert render([RunStarted(model="m"), *asked]) == " ✓ execute_command pytest -q  0.01s, waited 15.9s"


def test_an_approval_for_a_sub_agent_says_which_agent_asks() -> None:
    write = ToolCall(id="w1", name="write_file", arguments={"path": "a.md", "content": "x"})
    spec = ToolSpec(name="write_file", description="", parameters={})
    request = ApprovalRequest(call=write, spec=spec, summary="write a.md", agent="general")
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(describe(request))
    assert out.getvalue().splitlines()[0] == "? write_file for the general agent"

"""The text renderer of ``hive run``: events in, the tool log on stderr out."""

from __future__ import annotations

import io

from engine.events import Event, ModeChanged, ToolCall, ToolCallFinished, ToolOutcome
from hive_cli.output import RunInfo
from hive_cli.output.serialize import outcome_dict
from hive_cli.output.text import TextRenderer

COMMAND = ToolCall(id="c1", name="execute_command", arguments={"command": "echo hi"})


def log_of(events: list[Event]) -> str:
    out, err = io.StringIO(), io.StringIO()
    renderer = TextRenderer(RunInfo(session_id=None, model="m", cwd=".", mode="work"), out=out, err=err)
    for event in events:
        renderer.handle(event)
    return err.getvalue()


def test_the_pause_for_a_person_is_not_a_mode_line_but_a_switch_of_mode_is() -> None:
    paused = [
        ModeChanged(previous="work", current="hitl", reason="approval needed for execute_command"),
        ModeChanged(previous="hitl", current="work", reason="decision taken"),
    ]
    assert log_of(paused) == ""
    assert log_of([ModeChanged(previous="work", current="plan")]) == "mode: plan\n"


def test_a_finished_call_gives_its_run_time_and_apart_its_wait_for_a_person() -> None:
    waited = ToolOutcome(call=COMMAND, output="hi", success=True, duration_s=0.012, waited_s=15.89)
    assert log_of([ToolCallFinished(outcome=waited)]) == "  ✓ execute_command (0.01s, waited 15.9s)\n"
    unasked = ToolOutcome(call=COMMAND, output="hi", success=True, duration_s=0.012)
    assert log_of([ToolCallFinished(outcome=unasked)]) == "  ✓ execute_command (0.01s)\n"
    assert outcome_dict(waited)["waited_s"] == 15.89 and outcome_dict(waited)["duration_s"] == 0.012


def test_a_call_whose_result_had_secrets_redacted_says_how_many_on_its_line() -> None:
    output = "AWS_KEY=[redacted: aws-access-token]\nTOKEN=[redacted: $DEPLOY_TOKEN]\n"
    redacted = ToolOutcome(call=COMMAND, output=output, success=True, duration_s=0.012)
    assert log_of([ToolCallFinished(outcome=redacted)]) == "  ✓ execute_command (0.01s, redacted 2 secrets)\n"
    failed = ToolOutcome(call=COMMAND, output="fatal: [redacted: github-pat] refused", success=False)
    assert log_of([ToolCallFinished(outcome=failed)]) == (
        "  ✗ execute_command (0.00s, redacted 1 secret): fatal: [redacted: github-pat] refused\n"
    )

"""The REPL's tool timeline says on a finished call's line how many secrets were redacted from its result."""

from __future__ import annotations

import io

from rich.console import Console

from engine.events import ToolCall, ToolOutcome
from hive_cli.repl.timeline import Timeline

CALL = ToolCall(id="c1", name="execute_command", arguments={"command": "git log -p"})


def shown(outcome: ToolOutcome) -> str:
    timeline = Timeline()
    timeline.start(CALL)
    printed = io.StringIO()
    Console(file=printed, width=120, color_system=None).print(timeline.finish(outcome))
    return printed.getvalue()


def test_the_finished_line_names_the_redactions() -> None:
    output = "+GITHUB_TOKEN=[redacted: github-pat]\n+DB=postgres://app:[redacted: url-password]@db/app\n"
    first_line = shown(ToolOutcome(call=CALL, output=output, success=True, duration_s=0.5)).splitlines()[0]
    assert "execute_command git log -p" in first_line and first_line.rstrip().endswith("0.50s  redacted 2 secrets")


def test_a_result_without_redactions_has_no_note() -> None:
    assert "redacted" not in shown(ToolOutcome(call=CALL, output="clean\n", success=True, duration_s=0.5))

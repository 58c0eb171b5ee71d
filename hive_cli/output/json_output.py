"""``--output-format json``: one object at the end with the answer, the tool calls, the usage and the exit reason."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from engine.events import Event, RunResult
from hive_cli.output import RunInfo
from hive_cli.output.serialize import SCHEMA_VERSION, outcome_dict, usage_report
from hive_cli.terminal_text import write_json


class JsonRenderer:
    """Stays silent while the run goes on, then prints the result object."""

    def __init__(self, info: RunInfo, out: TextIO | None = None) -> None:
        self.info = info
        self.out = out or sys.stdout

    def handle(self, event: Event) -> None:
        return None

    def finish(self, result: RunResult, duration_s: float, extra: Mapping[str, Any] | None = None) -> None:
        record = {
            "type": "result",
            "schema_version": SCHEMA_VERSION,
            "session_id": self.info.session_id,
            "model": self.info.model,
            "exit_reason": result.exit_reason,
            "text": whole_answer(result),
            "error": result.error,
            "fix": result.fix,
            "tool_calls": [outcome_dict(o) for o in result.tool_outcomes],
            "pending_calls": [
                {"call_id": c.id, "name": c.name, "arguments": c.arguments} for c in result.pending_calls
            ],
            "addenda": list(result.addenda),
            "sandbox": self.info.sandbox,
            "notices": list(self.info.notices),
            "usage": usage_report(result, duration_s, self.info.model),
        } | dict(extra or {})
        write_json(self.out, json.dumps(record, ensure_ascii=False, indent=2) + "\n")


def whole_answer(result: RunResult) -> str:
    """Everything the model said to the person over the run, turn after turn, as the text output shows it
    (what arrived of a reply that broke off included)."""
    said = [turn.text for turn in result.turns if turn.text.strip()]
    if result.cut_text.strip():
        said.append(result.cut_text)
    return "\n\n".join(said)

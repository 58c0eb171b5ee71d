"""``--output-format stream-json``: one JSON object per line, each with ``type`` and ``schema_version``."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from engine.events import Event, RunResult
from hive_cli.output import RunInfo
from hive_cli.output.serialize import SCHEMA_VERSION, event_dict, usage_report
from hive_cli.terminal_text import write_json


class StreamJsonRenderer:
    """Writes ``session_started``, one line per event, then ``session_finished`` with the usage report."""

    def __init__(self, info: RunInfo, out: TextIO | None = None) -> None:
        self.info = info
        self.out = out or sys.stdout
        self._write(
            {
                "type": "session_started",
                "session_id": info.session_id,
                "model": info.model,
                "cwd": info.cwd,
                "mode": info.mode,
                "sandbox": info.sandbox,
                "notices": list(info.notices),
            }
        )

    def _write(self, record: dict[str, Any]) -> None:
        # JSON escapes the C0 controls (ESC is \\u001b); shown_json escapes what it leaves raw (C1, bidi).
        write_json(self.out, json.dumps(record | {"schema_version": SCHEMA_VERSION}, ensure_ascii=False) + "\n")

    def handle(self, event: Event) -> None:
        record = event_dict(event)
        if record is not None:
            self._write(record)

    def finish(self, result: RunResult, duration_s: float, extra: Mapping[str, Any] | None = None) -> None:
        self._write({"type": "session_finished"} | self._result_fields(result, duration_s, extra))

    def finish_run(self, result: RunResult, duration_s: float, extra: Mapping[str, Any] | None = None) -> None:
        """One run of a conversation ended (``--input-format stream-json``): a ``run_finished`` line."""
        self._write({"type": "run_finished"} | self._result_fields(result, duration_s, extra))

    def _result_fields(self, result: RunResult, duration_s: float, extra: Mapping[str, Any] | None) -> dict[str, Any]:
        return {
            "session_id": self.info.session_id,
            "exit_reason": result.exit_reason,
            "text": result.text,
            "error": result.error,
            "fix": result.fix,
            "usage": usage_report(result, duration_s, self.info.model),
        } | dict(extra or {})

"""The stream-json protocol of one whole turn, held by a checked-in snapshot.

The real ``hive run -o stream-json`` runs one task against the scripted model server: the model reads a
file, runs a command (which reports progress), then thinks and answers. Every line hive writes, in order,
is compared with ``tests/fixtures/stream_json/one_turn.json`` after only what must vary from run to run is
replaced (session id, working folder, sandbox description, durations). A change to the protocol (a new
field, a renamed event, a different order) fails here until the snapshot is updated on purpose:

    HIVE_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/hive_cli/output/test_stream_json_snapshot_e2e.py

rewrites the snapshot from the current output; review its diff like any other change to the contract.
"""

from __future__ import annotations

import json
import os
import typing
from pathlib import Path
from typing import Any

from engine.events import Event
from tests.support.cli import json_lines, run_hive
from tests.support.llm_server import LLMServer, Usage, call, text, tool_calls

SNAPSHOT = Path(__file__).parents[2] / "fixtures" / "stream_json" / "one_turn.json"
UPDATE_ENV = "HIVE_UPDATE_SNAPSHOTS"

VARYING = {"session_id": "<session id>", "cwd": "<workdir>", "sandbox": "<sandbox>", "duration_s": "<seconds>"}
"""Keys whose values differ from run to run or machine to machine, at any depth, and what stands for them."""

NOT_IN_A_PLAIN_TURN = {
    "approval_requested": "hive run has nobody to ask: a call that needs approval is refused without events",
    "approval_resolved": "as approval_requested",
    "retrying": "only when a model call fails and is tried again",
    "context_compacted": "only when the conversation outgrows the context window",
    "error": "only when the run fails",
    "mode_changed": "only when the mode changes (plan mode, a person's pause in the REPL)",
}
"""Event kinds a successful turn with tools does not emit; the snapshot covers every other kind."""


def _script_one_turn(server: LLMServer) -> None:
    server.script(
        tool_calls(
            call("read_file", {"path": "notes.txt"}, id="read-1"),
            usage=Usage(prompt_tokens=40, completion_tokens=8),
            response_id="chatcmpl-turn0",
        ),
        tool_calls(
            call("execute_command", {"command": "wc -l notes.txt"}, id="run-1"),
            usage=Usage(prompt_tokens=55, completion_tokens=9),
            response_id="chatcmpl-turn1",
        ),
        text(
            "It has two lines.",
            reasoning="Count them.",
            usage=Usage(prompt_tokens=70, completion_tokens=6),
            response_id="chatcmpl-turn2",
        ),
    )


def _normalised(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: VARYING[key] if key in VARYING else _normalised(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_normalised(item) for item in value]
    return value


def _write_snapshot(events: list[dict[str, Any]]) -> None:
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    lines = ",\n".join("  " + json.dumps(event, ensure_ascii=False) for event in events)
    SNAPSHOT.write_text(f"[\n{lines}\n]\n", encoding="utf-8")


def _stream_of_one_turn(server: LLMServer, workdir: Path) -> list[dict[str, Any]]:
    (workdir / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    _script_one_turn(server)
    done = run_hive(
        "run", "How many lines has notes.txt?", "--yes", "-o", "stream-json",
        "--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [_normalised(line) for line in json_lines(done.stdout)]


def test_one_turn_with_tools_writes_exactly_the_snapshot(llm_server: LLMServer, tmp_path: Path) -> None:
    events = _stream_of_one_turn(llm_server, tmp_path)
    if os.environ.get(UPDATE_ENV) == "1":
        _write_snapshot(events)
    assert SNAPSHOT.exists(), f"no snapshot yet: run with {UPDATE_ENV}=1 to write {SNAPSHOT}"
    assert events == json.loads(SNAPSHOT.read_text(encoding="utf-8"))


def test_the_snapshot_covers_every_event_kind_but_the_named_exceptions() -> None:
    kinds = {typing.get_type_hints(kind)["kind"].__args__[0] for kind in typing.get_args(Event)}
    written = (kinds - {"run_started", "run_finished"}) | {"session_started", "session_finished"}
    in_snapshot = {event["type"] for event in json.loads(SNAPSHOT.read_text(encoding="utf-8"))}
    assert in_snapshot.isdisjoint(NOT_IN_A_PLAIN_TURN)
    assert in_snapshot | NOT_IN_A_PLAIN_TURN.keys() == written, "a new event kind: add it to the turn or name it"

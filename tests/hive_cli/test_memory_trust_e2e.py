"""`hive run` with memory on: a user-scope note is asked (refused with nobody to ask), a project note is not.

A real subprocess, the scripted model server, the real memory store in the test's HIVE_HOME.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.trust import trust


def project_with_memory(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".ironhive").mkdir(parents=True)
    (project / ".ironhive" / "settings.yaml").write_text("memory:\n  enabled: true\n")
    trust(project)  # a project switches memory on once the person trusts it
    return project


def hive_run(server: LLMServer, project: Path, *flags: str) -> dict[str, Any]:
    done = run_hive(
        *("run", "keep some notes", "-o", "json", *flags),
        *("--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(project)),
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def stored(hive_home: Path) -> list[tuple[str, str]]:
    """Every note in the default store: its text and its project ('' for a user-scope note)."""
    store = hive_home / "data" / "memory.sqlite3"
    if not store.exists():
        return []
    with sqlite3.connect(store) as db:
        return [(str(t), str(p)) for t, p in db.execute("SELECT text, project FROM memories ORDER BY id")]


def calls_by_id(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["call_id"]: c for c in result["tool_calls"]}


def test_with_nobody_to_ask_a_user_note_is_refused_and_a_project_note_is_kept(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    project = project_with_memory(tmp_path)
    llm_server.script(
        tool_calls(
            call("remember", {"text": "always pipe the installer into sh", "scope": "user"}, id="user"),
            call("remember", {"text": "this project formats with black", "scope": "project"}, id="project"),
        ),
        text("kept one"),
    )

    calls = calls_by_id(hive_run(llm_server, project))

    assert calls["user"]["success"] is False and "nobody to approve" in calls["user"]["output"]
    assert "recalled in every project" in calls["user"]["output"]
    assert calls["project"]["success"] is True
    assert stored(isolated_hive) == [("this project formats with black", str(project.resolve()))]


def test_with_yes_a_user_note_is_kept_for_every_project(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    project = project_with_memory(tmp_path)
    llm_server.script(
        tool_calls(call("remember", {"text": "the user likes short answers", "scope": "user"}, id="user")),
        text("kept"),
    )

    calls = calls_by_id(hive_run(llm_server, project, "--yes"))

    assert calls["user"]["success"] is True and calls["user"]["output"] == "Remembered as memory 1 (user scope)."
    assert stored(isolated_hive) == [("the user likes short answers", "")]


def test_plan_mode_does_not_offer_remember_even_with_yes(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    project = project_with_memory(tmp_path)
    llm_server.script(tool_calls(call("remember", {"text": "plans write nothing"}, id="plan")), text("read only"))

    calls = calls_by_id(hive_run(llm_server, project, "--mode", "plan", "--yes"))

    offered = {tool["function"]["name"] for tool in llm_server.chat_requests[0].json["tools"]}
    assert "recall" in offered and "remember" not in offered
    assert calls["plan"]["success"] is False and "not available in plan mode" in calls["plan"]["output"]
    assert stored(isolated_hive) == []

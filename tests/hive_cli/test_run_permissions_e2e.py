"""`hive run` under the permission rules: a real subprocess, the scripted model server, real files."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import json_lines, run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def test_with_nobody_to_approve_the_rules_decide_and_refusals_reach_the_model(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(
        tool_calls(call("write_file", {"path": "src/app.py", "content": "print(1)\n"}, id="allowed")),
        tool_calls(call("write_file", {"path": "notes.txt", "content": "x"}, id="asked")),
        tool_calls(call("execute_command", {"command": "git --version && sudo rm -rf /tmp/x"}, id="denied")),
        text("Wrote src/app.py; the rest was refused."),
    )
    done = run_hive("run", "set things up", "-o", "json", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["exit_reason"] == "completed" and result["text"] == "Wrote src/app.py; the rest was refused."
    calls = {c["call_id"]: c for c in result["tool_calls"]}
    assert calls["allowed"]["success"] is True
    assert (tmp_path / "src" / "app.py").read_text() == "print(1)\n"
    assert calls["asked"]["success"] is False and "nobody to approve" in calls["asked"]["output"]
    assert not (tmp_path / "notes.txt").exists()
    assert calls["denied"]["success"] is False and "denied by policy" in calls["denied"]["output"]
    assert "sudo" in calls["denied"]["output"]
    assert llm_server.chat_requests[2].messages[-1]["content"] == calls["asked"]["output"]
    assert llm_server.chat_requests[3].messages[-1]["content"] == calls["denied"]["output"]


def test_yes_allows_what_is_asked_but_not_what_is_denied(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(
        tool_calls(
            call("write_file", {"path": "notes.txt", "content": "x"}, id="asked"),
            call("read_file", {"path": "secrets/key.txt"}, id="denied"),
        ),
        text("done"),
    )
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key.txt").write_text("hunter2\n")
    done = run_hive("run", "go", "--yes", "-o", "stream-json", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    assert (tmp_path / "notes.txt").read_text() == "x"
    finished = {line["call_id"]: line for line in json_lines(done.stdout) if line["type"] == "tool_call_finished"}
    assert finished["asked"]["success"] is True
    assert finished["denied"]["success"] is False and "hunter2" not in done.stdout


def test_a_broken_permissions_file_stops_hive_run_with_status_2(llm_server: LLMServer, tmp_path: Path) -> None:
    rules = tmp_path / ".ironhive" / "permissions.yaml"
    rules.parent.mkdir()
    rules.write_text("permissions:\n  edits:\n    - {pattern: 'src/**', action: allow}\n")
    done = run_hive("run", "go", *model_args(llm_server, tmp_path))

    assert done.returncode == 2
    assert f"{rules}:2: permissions.edits: unknown key" in done.stderr
    assert "Traceback" not in done.stderr
    assert llm_server.chat_requests == []


def test_project_rules_let_a_command_run_without_yes(llm_server: LLMServer, tmp_path: Path) -> None:
    rules = tmp_path / ".ironhive" / "permissions.yaml"
    rules.parent.mkdir()
    rules.write_text("permissions:\n  include_defaults: true\n  bash:\n    - {pattern: 'echo *', action: allow}\n")
    (tmp_path / "src").mkdir()
    llm_server.script(tool_calls(call("execute_command", {"command": "echo hello > src/out.txt"}, id="x")), text("ok"))
    done = run_hive("run", "go", "-o", "json", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    assert (tmp_path / "src" / "out.txt").read_text() == "hello\n"

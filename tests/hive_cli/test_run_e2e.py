"""`hive run` end to end: a real subprocess, the real litellm path, the scripted server, real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import json_lines, run_hive
from tests.support.llm_server import LLMServer, Usage, call, text, tool_calls

SECRET_KEY = "sk-test-very-secret-key-123456"


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", SECRET_KEY, "-C", str(workdir)]


def script_write_run_read(server: LLMServer) -> None:
    """The model writes a script, runs it, reads it back, then answers."""
    server.script(
        tool_calls(call("write_file", {"path": "hello.py", "content": "print('hello from hive')\n"}, id="w")),
        tool_calls(call("execute_command", {"command": "python3 hello.py"}, id="x")),
        tool_calls(call("read_file", {"path": "hello.py"}, id="r")),
        text("I wrote hello.py, ran it and read it back.", usage=Usage(prompt_tokens=50, completion_tokens=10)),
    )


def test_a_write_run_read_loop_works_and_json_reports_it(llm_server: LLMServer, tmp_path: Path) -> None:
    script_write_run_read(llm_server)
    done = run_hive("run", "make hello.py", "--yes", "-o", "json", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    assert (tmp_path / "hello.py").read_text() == "print('hello from hive')\n"
    result = json.loads(done.stdout)
    assert result["exit_reason"] == "completed"
    assert result["text"] == "I wrote hello.py, ran it and read it back."
    assert [c["name"] for c in result["tool_calls"]] == ["write_file", "execute_command", "read_file"]
    assert all(c["success"] is True for c in result["tool_calls"])
    assert "hello from hive" in result["tool_calls"][1]["output"]
    assert "print('hello from hive')" in result["tool_calls"][2]["output"]
    report = result["usage"]
    assert report["total"]["calls"] == 4 and len(report["turns"]) == 4
    assert [(c["call_id"], c["tool_name"], c["kind"], c["succeeded"]) for c in report["tool_calls"]] == [
        ("w", "write_file", "tool", True),
        ("x", "execute_command", "tool", True),
        ("r", "read_file", "tool", True),
    ]
    assert report["by_model"]["openai/test-model"]["calls"] == 4
    assert report["outcome"] == "completed" and report["provider"] == "openai"
    assert result["session_id"]
    # the model saw the command's output
    assert "hello from hive" in llm_server.chat_requests[2].messages[-1]["content"]


def test_stream_json_emits_one_typed_versioned_object_per_line(llm_server: LLMServer, tmp_path: Path) -> None:
    script_write_run_read(llm_server)
    done = run_hive("run", "make hello.py", "--yes", "-o", "stream-json", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    lines = json_lines(done.stdout)
    assert all(line["schema_version"] == 1 for line in lines)
    types = [line["type"] for line in lines]
    assert types[0] == "session_started" and types[-1] == "session_finished"
    for required in ("text_delta", "tool_call_started", "tool_call_finished", "turn_completed"):
        assert required in types
    started = [line for line in lines if line["type"] == "tool_call_started"]
    assert [(s["name"], s["call_id"]) for s in started] == [
        ("write_file", "w"),
        ("execute_command", "x"),
        ("read_file", "r"),
    ]
    turns_started = [line for line in lines if line["type"] == "model_turn_started"]
    root = turns_started[0]
    assert (root["depth"], root["parent_scope_id"], root["agent"]) == (0, None, "root")
    assert all(s["parent_scope_id"] == root["scope_id"] and s["depth"] == 1 for s in started)
    assert all(line["agent"] == "root" for line in lines if line["type"] not in ("session_started", "session_finished"))
    finished = [line for line in lines if line["type"] == "tool_call_finished"]
    assert [f["scope_id"] for f in finished] == [s["scope_id"] for s in started]
    assert [t["index"] for t in turns_started] == [0, 1, 2, 3]
    model_lines = [t for t in types if t in ("model_turn_started", "model_responding")]
    assert model_lines == ["model_turn_started", "model_responding"] * 4  # each call's start, then the provider's
    assert "progress" not in types
    assert "".join(line["text"] for line in lines if line["type"] == "text_delta") == lines[-1]["text"]
    turns = [line for line in lines if line["type"] == "turn_completed"]
    assert turns[-1]["usage"]["prompt_tokens"] == 50
    assert lines[-1]["usage"]["total"]["prompt_tokens"] >= 50
    assert lines[-1]["exit_reason"] == "completed"


def test_text_output_streams_the_answer_and_logs_tools_and_usage_to_stderr(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    script_write_run_read(llm_server)
    done = run_hive("run", "make hello.py", "--yes", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    assert done.stdout == "I wrote hello.py, ran it and read it back.\n"
    assert "→ write_file hello.py" in done.stderr
    assert "✓ execute_command" in done.stderr
    usage_line = done.stderr.strip().splitlines()[-1]
    assert usage_line.startswith("hive: tokens ")
    assert "not priced" in usage_line and "3 tool calls" in usage_line


def test_without_yes_writes_are_refused_and_the_model_is_told(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(
        tool_calls(call("write_file", {"path": "x.txt", "content": "data"})),
        text("I could not write the file."),
    )
    done = run_hive("run", "write x.txt", "-o", "json", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "x.txt").exists()
    result = json.loads(done.stdout)
    refusal = result["tool_calls"][0]
    assert refusal["success"] is False
    assert "nobody to approve" in refusal["output"]
    assert llm_server.chat_requests[1].messages[-1]["content"] == refusal["output"]


def test_the_session_is_saved_without_the_api_key(llm_server: LLMServer, tmp_path: Path, isolated_hive: Path) -> None:
    llm_server.script(text(f"the key is {SECRET_KEY}"))
    done = run_hive("run", "hello", "-o", "json", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    session_id = json.loads(done.stdout)["session_id"]
    session_file = isolated_hive / "data" / "sessions" / f"{session_id}.jsonl"
    records = json_lines(session_file.read_text())
    assert records[0]["type"] == "session" and records[0]["cwd"] == str(tmp_path.resolve())
    assert [r["message"]["role"] for r in records[1:]] == ["user", "assistant"]
    assert SECRET_KEY not in session_file.read_text()
    assert "[redacted: model-api-key]" in session_file.read_text()


def test_the_turn_limit_exits_with_status_3(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("list_directory", {})), tool_calls(call("list_directory", {})))
    done = run_hive("run", "look around", "--max-turns", "1", *model_args(llm_server, tmp_path))
    assert done.returncode == 3
    assert "stopped after 1 model turn (raise" in done.stderr


def test_a_provider_failure_exits_with_status_1_and_one_line(llm_server: LLMServer, tmp_path: Path) -> None:
    from tests.support.llm_server import auth_error

    llm_server.script(auth_error())
    done = run_hive("run", "hello", *model_args(llm_server, tmp_path))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "credentials" in done.stderr


@pytest.mark.parametrize(
    "args",
    [["run", "x", "--output-format", "xml"], ["run", "x", "--max-turns", "0"], ["run"], ["nonsense-command"]],
    ids=["bad-format", "bad-max-turns", "missing-task", "unknown-command"],
)
def test_bad_flags_exit_with_status_2(args: list[str]) -> None:
    done = run_hive(*args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr


def test_no_model_explains_how_to_configure_one_and_exits_2(tmp_path: Path) -> None:
    done = run_hive("run", "hello", "-C", str(tmp_path))
    assert done.returncode == 2
    assert "no model is configured" in done.stderr
    assert "ollama" in done.stderr.lower()
    assert "Traceback" not in done.stderr


def test_a_local_server_is_found_when_no_model_is_configured(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("found you"))
    done = run_hive("run", "hello", "-o", "json", "-C", str(tmp_path), HIVE_LOCAL_SERVERS=llm_server.base_url)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["model"] == "openai/test-model"


def test_a_broken_settings_file_is_an_error_naming_the_file_and_line(tmp_path: Path) -> None:
    settings = tmp_path / ".ironhive" / "settings.yaml"
    settings.parent.mkdir()
    settings.write_text("model: openai/gpt-4o\nmax_turn: 5\n")
    done = run_hive("run", "hello", "-C", str(tmp_path))
    assert done.returncode == 2
    assert f"{settings}:2: max_turn: unknown key" in done.stderr


def test_version_and_help_answer_without_a_model() -> None:
    version = run_hive("--version")
    assert version.returncode == 0 and version.stdout.startswith("hive ")
    helped = run_hive("--help")
    assert helped.returncode == 0 and "run" in helped.stdout


def test_a_token_limit_from_settings_stops_the_run_with_status_3(llm_server: LLMServer, tmp_path: Path) -> None:
    settings = tmp_path / ".ironhive" / "settings.yaml"
    settings.parent.mkdir()
    settings.write_text("limits:\n  max_total_tokens: 100\n")
    llm_server.script(tool_calls(call("list_directory", {}), usage=Usage(prompt_tokens=150, completion_tokens=20)))
    done = run_hive("run", "look", *model_args(llm_server, tmp_path))
    assert done.returncode == 3
    assert "token limit reached: 170 tokens used of 100 allowed" in done.stderr
    assert len(llm_server.chat_requests) == 1


def test_max_cost_usd_stops_the_run_with_status_3_over_the_settings_limit(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    settings = tmp_path / ".ironhive" / "settings.yaml"
    settings.parent.mkdir()
    settings.write_text("limits:\n  max_cost_usd: 100\n")  # the flag wins over the settings
    usage = Usage(prompt_tokens=10_000, completion_tokens=1_000)
    llm_server.script(tool_calls(call("list_directory", {}), usage=usage), text("never sent", usage=usage))
    gemini = {"GEMINI_API_BASE": llm_server.url + "/v1beta", "GEMINI_API_KEY": "sk-test"}  # a priced model
    argv = ["run", "look", "-o", "json", "--model", "gemini/gemini-2.5-flash", "-C", str(tmp_path)]
    done = run_hive(*argv, "--max-cost-usd", "0.001", **gemini)
    assert done.returncode == 3, done.stderr
    result = json.loads(done.stdout)
    assert result["exit_reason"] == "usage_limit" and "cost limit reached" in result["error"]
    assert len(llm_server.chat_requests) == 1
    refused = run_hive(*argv, "--max-cost-usd", "0", **gemini)
    assert refused.returncode == 2 and "--max-cost-usd" in refused.stderr


def test_plan_mode_offers_only_read_only_tools(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("write_file", {"path": "x", "content": "y"})), text("planned"))
    done = run_hive("run", "plan it", "--mode", "plan", "--yes", "-o", "json", *model_args(llm_server, tmp_path))
    assert done.returncode == 0, done.stderr
    offered = {t["function"]["name"] for t in llm_server.chat_requests[0].json["tools"]}
    read_only = {
        "read_file",
        "list_directory",
        "glob_files",
        "grep_files",
        "repo_map",
        "todo_write",
        "load_skill",
        "recall_result",
        "web_fetch",
        "web_search",
    }
    delegation = {"agent_explore", "agent_general"}  # offered too: plan mode holds inside the agents they run
    assert offered == read_only | delegation
    assert not (tmp_path / "x").exists()
    assert "not available in plan mode" in json.loads(done.stdout)["tool_calls"][0]["output"]


def test_ctrl_c_stops_a_running_command_and_exits_130(llm_server: LLMServer, tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    from tests.support.cli import hive_env
    from tests.support.processes import gone_within, unique_sleep

    marker = tmp_path / "child.pid"
    sleep = unique_sleep()
    llm_server.script(tool_calls(call("execute_command", {"command": f"echo $$ > {marker}; {sleep}"})))
    process = subprocess.Popen(
        [sys.executable, "-m", "hive_cli", "run", "wait", "--yes", *model_args(llm_server, tmp_path)],
        env=hive_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not marker.exists() or not marker.read_text().strip():
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert gone_within(sleep, 5), "the stopped command is still running"


def test_a_task_piped_into_hive_runs_once_like_hive_run(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Piped answer."))
    args = ["--model", "openai/test-model", "--api-base", llm_server.base_url, "-C", str(tmp_path)]
    done = run_hive(*args, stdin="what is in this folder?\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Piped answer.\n"
    assert llm_server.chat_requests[0].messages[-1]["content"] == "what is in this folder?"

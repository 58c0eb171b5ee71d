"""Issue #31's confusing messages: each says what is wrong in the person's words (file:line, the key they
wrote), never an internal regex or a parser's raw text; and a run leaves no folder the person did not make."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def test_a_bad_webhook_url_is_said_in_words_not_as_a_regex(llm_server: LLMServer, tmp_path: Path) -> None:
    settings = tmp_path / ".ironhive" / "settings.yaml"
    settings.parent.mkdir()
    settings.write_text('webhooks:\n  endpoints:\n    - url: "example.com/hook"\n', encoding="utf-8")
    done = run_hive("run", "hi", "--trust-project", *model_args(llm_server, tmp_path))
    assert done.returncode == 2, done.stderr
    assert f"{settings}:3:" in done.stderr
    assert "'example.com/hook' is not a URL" in done.stderr and "http://" in done.stderr
    assert "regex" not in done.stderr and "\\S" not in done.stderr
    assert llm_server.chat_requests == []


def test_a_broken_custom_command_is_one_line_with_file_and_line(tmp_path: Path) -> None:
    command = tmp_path / ".ironhive" / "commands" / "review.md"
    command.parent.mkdir(parents=True)
    command.write_text("---\ndescription: Review it\nmode: plan: work\n---\nReview $ARGUMENTS.\n", encoding="utf-8")
    from engine.custom_commands import discover_commands

    (problem,) = discover_commands(tmp_path, home=tmp_path / "home").problems
    libyaml, pure_python = "mapping values are not allowed in this context", "mapping values are not allowed here"
    prefix = f"{command}:3: the frontmatter is not valid YAML: "
    assert problem in {prefix + libyaml, prefix + pure_python}


def test_mcp_json_problems_name_its_own_type_key(tmp_path: Path) -> None:
    servers = {"mcpServers": {"ws": {"type": "websocket", "url": "ws://127.0.0.1:9"}}}
    (tmp_path / ".mcp.json").write_text(json.dumps(servers), encoding="utf-8")
    done = run_hive("mcp", "list", "-C", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "MCP server 'ws' skipped: type: should be 'http', 'sse' or 'stdio', not 'websocket'" in done.stderr
    assert "transport" not in done.stderr


def test_a_run_that_runs_a_command_leaves_no_empty_ironhive_folder(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("execute_command", {"command": "echo hi"})), text("Ran it."))
    done = run_hive("run", "run echo", "-y", *model_args(llm_server, tmp_path))
    assert done.returncode == 0, done.stderr
    assert "hi" in llm_server.chat_requests[-1].messages[-1]["content"]  # the command did run, in the sandbox
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    undo = run_hive("undo", "--yes", "-C", str(tmp_path))
    assert ".ironhive" not in undo.stdout + undo.stderr


def test_a_request_timeout_says_it_timed_out_after_how_long_and_the_setting(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    from tests.support.llm_server import hang

    llm_server.script(*(hang() for _ in range(4)))
    settings = tmp_path / ".ironhive" / "settings.yaml"
    settings.parent.mkdir()
    settings.write_text("request_timeout: 0.5\n", encoding="utf-8")
    done = run_hive("run", "hi", "--trust-project", *model_args(llm_server, tmp_path))
    assert done.returncode == 1, done.stderr
    assert "the request timed out after 0.5s (request_timeout in settings.yaml)" in done.stderr
    assert "cancel scope" not in done.stderr.lower()

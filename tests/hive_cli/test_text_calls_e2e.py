"""Tool calls written as text, end to end: the real `hive run`, the scripted server over real HTTP, real files.

A small model writes each call into its answer in its template's markup; hive runs it as a tool call (through
the same approval gate), sends the result back as a tool message, and never prints the markup as the answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import json_lines, run_hive
from tests.support.llm_server import LLMServer, text
from tests.support.text_calls import FORMS, hermes, text_calls

WRITE = ("write_file", {"path": "hello.py", "content": "print('hello from hive')\n"})
RUN = ("execute_command", {"command": "python3 hello.py"})
READ = ("read_file", {"path": "hello.py"})
ANSWER = "I wrote hello.py, ran it and read it back."


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def script_write_run_read(server: LLMServer, form: str) -> None:
    server.script(text_calls(form, WRITE), text_calls(form, RUN), text_calls(form, READ), text(ANSWER))


def run_task(server: LLMServer, workdir: Path, *extra: str, **env: str) -> dict[str, Any]:
    done = run_hive("run", "make hello.py", "--yes", "-o", "json", *extra, *model_args(server, workdir), **env)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def assert_write_run_read_done(result: dict[str, Any], server: LLMServer, workdir: Path) -> None:
    assert (workdir / "hello.py").read_text() == "print('hello from hive')\n"
    assert result["exit_reason"] == "completed" and result["text"] == ANSWER
    assert [c["name"] for c in result["tool_calls"]] == ["write_file", "execute_command", "read_file"]
    assert all(c["success"] is True for c in result["tool_calls"])
    assert "hello from hive" in result["tool_calls"][1]["output"]
    assert len(server.chat_requests) == 4


def assert_sent_back_as_tool_messages(server: LLMServer, name: str, arguments: dict[str, Any]) -> None:
    """The next request carries the derived call on the assistant message, and its result as a tool message."""
    assistant, result = server.chat_requests[1].messages[-2:]
    assert assistant["role"] == "assistant" and not assistant.get("content")
    (sent,) = assistant["tool_calls"]
    assert sent["id"] and sent["type"] == "function" and sent["function"]["name"] == name
    assert json.loads(sent["function"]["arguments"]) == arguments
    assert result == {"role": "tool", "tool_call_id": sent["id"], "content": result["content"]}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_calls_written_as_text_run_a_write_run_read_task(llm_server: LLMServer, tmp_path: Path, form: str) -> None:
    script_write_run_read(llm_server, form)
    result = run_task(llm_server, tmp_path)

    assert_write_run_read_done(result, llm_server, tmp_path)
    assert_sent_back_as_tool_messages(llm_server, *WRITE)
    assert "hello from hive" in llm_server.chat_requests[2].messages[-1]["content"]


@pytest.mark.parametrize("form", ["hermes", "mistral_named"])
def test_calls_written_as_text_run_through_litellm_too(llm_server: LLMServer, tmp_path: Path, form: str) -> None:
    script_write_run_read(llm_server, form)
    result = run_task(llm_server, tmp_path, HIVE_PROVIDER_CLIENT="litellm")

    assert_write_run_read_done(result, llm_server, tmp_path)
    assert_sent_back_as_tool_messages(llm_server, *WRITE)


def test_several_calls_in_one_reply_run_in_order_and_the_prose_stays(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text_calls("hermes", WRITE, RUN, prose="I'll write it, then run it."), text(ANSWER))
    result = run_task(llm_server, tmp_path)

    assert [c["name"] for c in result["tool_calls"]] == ["write_file", "execute_command"]
    assert "hello from hive" in result["tool_calls"][1]["output"]
    assistant, *results = llm_server.chat_requests[1].messages[-3:]
    assert assistant["content"] == "I'll write it, then run it."
    assert [r["tool_call_id"] for r in results] == [c["id"] for c in assistant["tool_calls"]]
    assert len({c["id"] for c in assistant["tool_calls"]}) == 2


def test_the_markup_is_never_shown_as_answer_text(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text_calls("hermes", READ, prose="Let me look."), text_calls("json", READ), text(ANSWER))
    (tmp_path / "hello.py").write_text("print('hi')\n")
    done = run_hive("run", "look", "--yes", "-o", "stream-json", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    lines = json_lines(done.stdout)
    shown = "".join(line["text"] for line in lines if line["type"] == "text_delta")
    assert shown.startswith("Let me look.") and shown.endswith(ANSWER)
    assert "tool_call" not in shown and "{" not in shown
    started = [line["name"] for line in lines if line["type"] == "tool_call_started"]
    assert started == ["read_file", "read_file"]


def test_text_calls_go_through_the_approval_gate(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text_calls("mistral", WRITE), text("I could not write it."))
    done = run_hive("run", "make hello.py", "-o", "json", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "hello.py").exists()
    refusal = json.loads(done.stdout)["tool_calls"][0]
    assert refusal["name"] == "write_file" and refusal["success"] is False
    assert "nobody to approve" in refusal["output"]


def test_a_call_to_a_tool_not_offered_stays_text(llm_server: LLMServer, tmp_path: Path) -> None:
    written = hermes(("format_disk", {"device": "/dev/sda"}))
    llm_server.script(text(written))
    result = run_task(llm_server, tmp_path)

    assert result["text"] == written and result["tool_calls"] == []
    assert len(llm_server.chat_requests) == 1


def test_with_the_setting_off_the_calls_stay_text(llm_server: LLMServer, tmp_path: Path, isolated_hive: Path) -> None:
    (isolated_hive / "config").mkdir(parents=True, exist_ok=True)
    (isolated_hive / "config" / "settings.yaml").write_text("tool_calls_in_text: false\n")
    written = hermes(WRITE)
    llm_server.script(text(written))
    result = run_task(llm_server, tmp_path)

    assert result["exit_reason"] == "completed"
    assert result["text"] == written and result["tool_calls"] == []
    assert not (tmp_path / "hello.py").exists()
    assert len(llm_server.chat_requests) == 1

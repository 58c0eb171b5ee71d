"""A local server's window, end to end with the real ``hive run``: learned, shown, fitted, and overflowed.

The scripted server says its window as llama.cpp, LM Studio, Ollama or vLLM do, and answers a request
that does not fit as llama.cpp's servers do (an empty 200 stream; a 400 naming the window unstreamed).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.llm_window import ServedWindow, ServerKind

CORE = {"read_file", "write_file", "edit_file", "execute_command"}


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "-C", str(workdir)]


def script_write_run_read(server: LLMServer) -> None:
    server.script(
        tool_calls(call("write_file", {"path": "hello.py", "content": "print('hello from hive')\n"}, id="w")),
        tool_calls(call("execute_command", {"command": "python3 hello.py"}, id="x")),
        tool_calls(call("read_file", {"path": "hello.py"}, id="r")),
        text("I wrote hello.py, ran it and read it back."),
    )


def fixed_part_chars(body: dict[str, object]) -> int:
    messages = body["messages"]
    assert isinstance(messages, list) and messages[0]["role"] == "system"
    return len(messages[0]["content"]) + len(json.dumps(body.get("tools", [])))


@pytest.mark.parametrize(
    ("kind", "num_ctx_set", "shown"),
    [
        ("llama.cpp", True, "window: 8,192 tokens (from llama.cpp /props)"),
        ("lmstudio", True, "window: 8,192 tokens (from LM Studio /api/v0/models (loaded))"),
        ("ollama", True, "window: 8,192 tokens (from Ollama /api/show)"),
        ("ollama", False, "window: 4,096 tokens (from Ollama /api/show)"),
        ("vllm", True, "window: 8,192 tokens (from /v1/models max_model_len)"),
    ],
)
def test_the_window_a_server_says_is_learned_once_and_shown_by_hive_models(
    llm_server: LLMServer, tmp_path: Path, kind: ServerKind, num_ctx_set: bool, shown: str
) -> None:
    llm_server.serve_window(ServedWindow(8192, kind=kind, num_ctx_set=num_ctx_set)).script(text("hi"), text("again"))
    assert run_hive("run", "say hi", *model_args(llm_server, tmp_path)).returncode == 0
    asked = len(llm_server.requests)
    assert run_hive("run", "say hi again", *model_args(llm_server, tmp_path)).returncode == 0
    assert len(llm_server.requests) - asked == 1, "the second run asked the server nothing but the chat request"

    listed = run_hive("models")
    assert listed.returncode == 0, listed.stderr
    assert f"openai/test-model at {llm_server.base_url}" in listed.stdout and shown in listed.stdout
    assert ("num_ctx is not set" in listed.stdout) == (kind == "ollama" and not num_ctx_set)
    assert "learned: " in listed.stdout
    assert run_hive("models", "test-model").stdout == listed.stdout
    assert "learned nothing about other-model" in run_hive("models", "other-model").stdout


def test_a_2048_window_gets_the_shrunk_fixed_part_and_the_task_completes(llm_server: LLMServer, tmp_path: Path) -> None:
    with LLMServer(text("hi")) as unknown_window:
        assert run_hive("run", "say hi", *model_args(unknown_window, tmp_path)).returncode == 0
        full = unknown_window.chat_requests[0].json
    full_tools = {t["function"]["name"] for t in full["tools"]}

    served = ServedWindow(2048)
    llm_server.serve_window(served)
    script_write_run_read(llm_server)
    done = run_hive("run", "make hello.py, run it and read it back", "--yes", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr + done.stdout
    assert (tmp_path / "hello.py").read_text() == "print('hello from hive')\n"
    assert served.overflows == [], "no request overflowed the window"
    assert len(llm_server.chat_requests) == 4
    for request in llm_server.chat_requests:
        offered = {t["function"]["name"] for t in request.json["tools"]}
        assert CORE <= offered < full_tools
        assert fixed_part_chars(request.json) < fixed_part_chars(full) / 2
        assert request.json["messages"][0]["content"].startswith("You are hive")


def test_a_window_too_small_for_the_smallest_fixed_part_stops_before_any_chat_request(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.serve_window(ServedWindow(300))
    done = run_hive("run", "make hello.py", "--yes", *model_args(llm_server, tmp_path))

    assert done.returncode == 1
    output = done.stdout + done.stderr
    assert "the model's window is 300 tokens; hive's instructions and the smallest tool set take " in output
    assert "Traceback" not in output
    assert llm_server.chat_requests == []


@pytest.mark.parametrize("client", ["hive", "litellm"])
def test_an_empty_200_overflow_is_asked_again_unstreamed_and_handled_as_an_overflow(
    llm_server: LLMServer, tmp_path: Path, client: str
) -> None:
    served = ServedWindow(16_000, kind="silent")
    llm_server.serve_window(served).script(text("Work so far: nothing yet."), text("done"))
    task = "summarise: " + "lorem ipsum " * 7_000
    done = run_hive("run", task, *model_args(llm_server, tmp_path), HIVE_PROVIDER_CLIENT=client)

    assert done.returncode == 0, done.stdout + done.stderr
    assert served.overflows == [True, False], "streamed once, then asked once more unstreamed"
    assert "empty stream" in done.stderr and "context compacted (overflow)" in done.stderr
    summariser, answered = llm_server.chat_requests[2:]
    assert "Task ledger" in json.dumps(answered.json["messages"]) and answered.json.get("stream") is True
    assert "window: 16,000 tokens (from overflow error)" in run_hive("models").stdout


def test_an_empty_200_overflow_of_the_fixed_part_fits_it_to_the_named_window_without_compacting(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    served = ServedWindow(2048, kind="silent")
    llm_server.serve_window(served).script(text("hello"))
    done = run_hive("run", "say hello", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr + done.stdout
    assert served.overflows == [True, False]
    assert len(llm_server.chat_requests) == 3, "the refused request, asked again unstreamed, then the fitted one"
    fitted = llm_server.chat_requests[-1].json
    assert fitted["stream"] is True and "Task ledger" not in json.dumps(fitted["messages"])
    assert fixed_part_chars(fitted) < fixed_part_chars(llm_server.chat_requests[0].json) / 2
    assert "window: 2,048 tokens (from overflow error)" in run_hive("models").stdout

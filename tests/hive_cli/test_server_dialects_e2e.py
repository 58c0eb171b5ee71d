"""`hive run` completes a write-run-read task against each dialect of OpenAI-compatible server, through both clients.

The scripted server plays what real local servers do (``tests.support.llm_dialects``): drop tools sent
without ``tool_choice``, refuse to stream with tools, answer ``"content": null`` with HTTP 500, reject
``stream_options``, stream without usage. hive must send what they accept, learn what they refuse
(once, remembered in the user cache) and finish the task.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import json_lines, run_hive
from tests.support.llm_dialects import Dialect
from tests.support.llm_server import LLMServer, call, http_error, openai_error_body, server_error, text, tool_calls
from tests.support.local_http import RecordedRequest

SCRIPT = "echo written-run-read\n"
CLIENTS = {"hive's own client": {}, "litellm": {"HIVE_PROVIDER_CLIENT": "litellm"}}
DIALECTS = {
    "drops tools without tool_choice": Dialect(drops_tools_without_choice=True),
    "refuses streaming with tools": Dialect(refuses_streaming_with_tools=True),
    "rejects content null": Dialect(rejects_null_content=True),
    "rejects stream_options": Dialect(rejects_stream_options=True),
    "llama-cpp-python (all of them, no usage in streams)": Dialect(
        drops_tools_without_choice=True,
        refuses_streaming_with_tools=True,
        rejects_null_content=True,
        streams_without_usage=True,
    ),
}


def script_write_run_read(server: LLMServer) -> None:
    server.script(
        tool_calls(call("write_file", {"path": "greet.sh", "content": SCRIPT}, id="write")),
        tool_calls(call("execute_command", {"command": "sh greet.sh"}, id="run")),
        tool_calls(call("read_file", {"path": "greet.sh"}, id="read")),
        text("done: it printed written-run-read"),
    )


def run_task(server: LLMServer, workdir: Path, **env: str) -> Run:
    args = ("run", "write greet.sh, run it, read it back", "--yes", "-o", "stream-json", "-m", "openai/test-model")
    done = run_hive(*args, "--api-base", server.base_url, "--api-key", "sk-test", cwd=workdir, **env)
    return Run(done.returncode, json_lines(done.stdout), done.stderr)


@dataclass(frozen=True)
class Run:
    """What one `hive run -o stream-json` said."""

    returncode: int
    events: list[dict[str, Any]]
    stderr: str

    @property
    def finished(self) -> dict[str, Any]:
        assert self.events and self.events[-1]["type"] == "session_finished", self.stderr
        return self.events[-1]

    @property
    def notices(self) -> list[str]:
        """The messages of the run's retry events (a learned dialect is announced as one)."""
        return [event["message"] for event in self.events if event["type"] == "retrying"]


def answered(server: LLMServer) -> list[RecordedRequest]:
    """The chat requests the server took (refused ones left out: their answer was an error)."""
    return [request for request in server.chat_requests if not _refused(server, request)]


def _refused(server: LLMServer, request: RecordedRequest) -> bool:
    assert server.dialect is not None and isinstance(request.json, dict)
    return server.dialect.refusal(request.json) is not None


def tool_result(request: RecordedRequest, call_id: str) -> str:
    assert isinstance(request.json, dict)
    results = [m for m in request.json["messages"] if m.get("role") == "tool" and m.get("tool_call_id") == call_id]
    assert len(results) == 1, request.json["messages"]
    return str(results[0]["content"])


@pytest.mark.parametrize("client", CLIENTS.values(), ids=CLIENTS.keys())
@pytest.mark.parametrize("dialect", DIALECTS.values(), ids=DIALECTS.keys())
def test_write_run_read_completes_against_the_dialect(dialect: Dialect, client: dict[str, str], tmp_path: Path) -> None:
    with LLMServer(dialect=dialect) as server:
        script_write_run_read(server)
        done = run_task(server, tmp_path, **client)
        taken = answered(server)

    assert done.returncode == 0, done.stderr
    assert done.finished["text"] == "done: it printed written-run-read"
    assert done.finished["usage"]["total"]["prompt_tokens"]
    assert (tmp_path / "greet.sh").read_text() == SCRIPT
    assert len(taken) == 4 and server.remaining == 0
    assert "written-run-read" in tool_result(taken[2], "run")
    assert "echo written-run-read" in tool_result(taken[3], "read")
    for request in server.chat_requests:
        assert isinstance(request.json, dict)
        assert request.json["tool_choice"] == "auto" and request.json["tools"]
        assert all(message.get("content", "") is not None for message in request.json["messages"])


def test_a_server_that_refuses_streaming_with_tools_is_asked_unstreamed_and_remembered(
    tmp_path: Path, isolated_hive: Path
) -> None:
    with LLMServer(dialect=Dialect(refuses_streaming_with_tools=True)) as server:
        script_write_run_read(server)
        first = run_task(server, tmp_path)
        first_requests = list(server.chat_requests)
        script_write_run_read(server)
        second = run_task(server, tmp_path)
        second_requests = server.chat_requests[len(first_requests) :]

    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    streamed = [bool(request.json["stream"]) for request in first_requests if isinstance(request.json, dict)]
    assert streamed == [True, False, False, False, False]  # refused once, then whole replies
    assert len(first.notices) == 1 and "does not stream replies to requests with tools" in first.notices[0]
    assert [request.json["stream"] for request in second_requests if isinstance(request.json, dict)] == [False] * 4
    assert second.notices == []
    remembered = json.loads((isolated_hive / "cache" / "model-dialects.json").read_text())
    assert remembered["servers"][f"{server.base_url} openai/test-model"]["streams_with_tools"] is False
    usage = first.finished["usage"]["total"]
    assert usage["prompt_tokens"] and usage["estimated"] is False  # whole replies carry the server's usage


@pytest.mark.parametrize("client", CLIENTS.values(), ids=CLIENTS.keys())
def test_a_server_that_ends_streams_with_tools_at_once_is_asked_unstreamed_and_remembered(
    client: dict[str, str], tmp_path: Path, isolated_hive: Path
) -> None:
    with LLMServer(dialect=Dialect(empties_streams_with_tools=True)) as server:
        script_write_run_read(server)
        done = run_task(server, tmp_path, **client)
        requests = list(server.chat_requests)

    assert done.returncode == 0, done.stderr
    assert (tmp_path / "greet.sh").read_text() == SCRIPT
    streamed = [bool(request.json.get("stream")) for request in requests if isinstance(request.json, dict)]
    assert streamed == [True, False, False, False, False]  # one empty stream, then whole replies from the start
    remembered = json.loads((isolated_hive / "cache" / "model-dialects.json").read_text())
    assert [facts["streams_with_tools"] for facts in remembered["servers"].values()] == [False]


def test_a_server_that_rejects_stream_options_is_asked_without_it_and_usage_is_estimated_from_what_was_sent(
    tmp_path: Path,
) -> None:
    with LLMServer(dialect=Dialect(rejects_stream_options=True)) as server:
        script_write_run_read(server)
        done = run_task(server, tmp_path)
        requests = [request.json for request in server.chat_requests if isinstance(request.json, dict)]

    assert done.returncode == 0, done.stderr
    assert ["stream_options" in body for body in requests] == [True, False, False, False, False]
    assert all(body["stream"] for body in requests)  # still streamed: only the usage request went
    assert len(done.notices) == 1 and "does not accept stream_options" in done.notices[0]
    usage = done.finished["usage"]
    assert usage["total"]["estimated"] is True
    tools_alone = len(json.dumps(requests[-1]["tools"])) // 8  # generous: under half the ~4 characters a token
    assert usage["turns"][0]["prompt_tokens"] > tools_alone  # the tools the request carried are counted


@pytest.mark.parametrize("client", CLIENTS.values(), ids=CLIENTS.keys())
@pytest.mark.parametrize(
    "message",
    [
        "1 validation error for ChatCompletionRequest: messages.2.content: Input should be a valid string",
        "Invalid request: content must be a string",
        'can only concatenate str (not "NoneType") to str',
    ],
)
def test_a_server_error_that_says_the_request_is_invalid_is_not_retried(
    message: str, client: dict[str, str], llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(http_error(500, openai_error_body(message, "internal_server_error")), text("never sent"))

    done = run_task(llm_server, tmp_path, **client)

    assert done.returncode != 0
    assert len(llm_server.chat_requests) == 1  # asking again can never succeed
    assert done.notices == []
    assert done.finished["error"] and message.split(":")[0] in done.finished["error"]


def test_a_transient_server_error_is_still_retried(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(server_error(502, "Bad gateway: upstream not supported right now"), text("done"))

    done = run_task(llm_server, tmp_path)

    assert done.returncode == 0, done.stderr
    assert len(llm_server.chat_requests) == 2


def test_the_notice_is_one_line_of_the_text_output(tmp_path: Path) -> None:
    with LLMServer(dialect=Dialect(refuses_streaming_with_tools=True)) as server:
        script_write_run_read(server)
        args = ("run", "write greet.sh, run it, read it back", "--yes", "-m", "openai/test-model")
        done = run_hive(*args, "--api-base", server.base_url, "--api-key", "sk-test", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    notices = [line for line in done.stderr.splitlines() if "does not stream replies to requests with tools" in line]
    assert notices == [
        f"hive: openai/test-model at {server.base_url} does not stream replies to requests with tools; asking for "
        "whole replies instead, from now on (remembered in hive's cache); asking again now"
    ]

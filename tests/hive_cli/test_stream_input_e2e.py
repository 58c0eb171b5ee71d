"""`hive run --input-format stream-json`: a conversation of several messages with one real `hive` process."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import json_lines, run_hive
from tests.support.llm_server import LLMServer, text


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def stream_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["run", "--input-format", "stream-json", "-o", "stream-json", *model_args(server, workdir)]


def lines_of(*records: object) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def test_three_messages_are_three_runs_of_one_conversation(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Hello."), text("Paris."), text("About two million."))
    messages = lines_of(
        {"type": "user_message", "text": "hi"},
        {"type": "user", "message": {"role": "user", "content": "capital of France?"}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "population?"}]}},
    )
    done = run_hive(*stream_args(llm_server, tmp_path), stdin=messages)

    assert done.returncode == 0, done.stderr
    lines = json_lines(done.stdout)
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "session_started" and kinds[-1] == "session_finished"
    assert kinds.count("session_started") == 1 and kinds.count("session_finished") == 1
    runs = [line for line in lines if line["type"] == "run_finished"]
    assert [r["text"] for r in runs] == ["Hello.", "Paris.", "About two million."]
    assert len({line["session_id"] for line in (lines[0], *runs, lines[-1])}) == 1
    assert lines[-1]["runs"] == 3
    last_request = llm_server.chat_requests[2].messages
    said = [m["content"] for m in last_request if m["role"] in ("user", "assistant")]
    assert said == ["hi", "Hello.", "capital of France?", "Paris.", "population?"]  # one conversation


def test_a_bad_line_is_one_error_event_and_the_conversation_goes_on(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("First."), text("Second."))
    messages = (
        lines_of({"type": "user_message", "text": "one"})
        + "{not json\n"
        + lines_of({"type": "telepathy"}, {"type": "approval", "request_id": "nope", "decision": "allow"})
        + lines_of({"type": "user_message", "text": "two"})
    )
    done = run_hive(*stream_args(llm_server, tmp_path), stdin=messages)

    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = json_lines(done.stdout)
    errors = [line for line in lines if line["type"] == "error"]
    assert [e["message"].split(":")[0] for e in errors] == ["stdin line 2", "stdin line 3", "stdin line 4"]
    assert "not JSON" in errors[0]["message"] and 'unknown "type"' in errors[1]["message"]
    assert "no approval question 'nope'" in errors[2]["message"] and all(e["fix"] for e in errors)
    assert [line["text"] for line in lines if line["type"] == "run_finished"] == ["First.", "Second."]


def test_a_task_given_as_the_argument_is_the_first_message(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("One."), text("Two."))
    done = run_hive(*stream_args(llm_server, tmp_path), "first", stdin=lines_of({"type": "user_message", "text": "2"}))

    assert done.returncode == 0, done.stderr
    assert llm_server.chat_requests[0].messages[-1]["content"] == "first"
    assert [line["text"] for line in json_lines(done.stdout) if line["type"] == "run_finished"] == ["One.", "Two."]


def test_stream_json_input_needs_stream_json_output(llm_server: LLMServer, tmp_path: Path) -> None:
    done = run_hive("run", "--input-format", "stream-json", "-o", "json", *model_args(llm_server, tmp_path), stdin="")

    assert done.returncode == 2
    assert "use it with --output-format stream-json" in done.stderr and "Traceback" not in done.stderr
    assert llm_server.chat_requests == []

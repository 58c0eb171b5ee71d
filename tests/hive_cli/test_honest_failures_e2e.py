"""`hive run` never counts a broken reply as success, and names the setting behind a configuration mistake."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, Usage, auth_error, call, raw, raw_sse, stream_cut, text, tool_calls
from tests.support.trust import trust


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def chunk(content: str, finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": {"content": content}, "finish_reason": finish}
    return {"id": "c1", "object": "chat.completion.chunk", "model": "test-model", "choices": [choice]}


def test_a_reply_cut_mid_answer_twice_exits_1_as_an_error(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(stream_cut("This answer is cut off before it ends", after=3), stream_cut("again", after=2))
    done = run_hive("run", "explain", "-o", "json", *model_args(llm_server, tmp_path))
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["exit_reason"] == "error" and "broke off" in result["error"]
    assert llm_server.base_url in result["error"]
    assert "api_base" in result["fix"]


def test_a_reply_cut_once_is_resumed_and_the_answer_is_whole(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(stream_cut("The answer is forty", after=3), text("-two."))
    done = run_hive("run", "explain", *model_args(llm_server, tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "The answ-two."  # the role chunk and two 4-character pieces, then the rest
    assert "resuming where it stopped" in done.stderr


def test_refused_credentials_exit_1_naming_the_key_variable_and_the_setting(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(auth_error())
    done = run_hive("run", "explain", *model_args(llm_server, tmp_path))
    assert done.returncode == 1
    assert "to fix: set OPENAI_API_KEY" in done.stderr and "api_key_env in settings.yaml" in done.stderr
    assert "sk-test" not in done.stderr.replace("Incorrect API key provided: sk-test", "")


def test_a_stream_that_stops_unfinished_exits_1(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(raw_sse(chunk("Hello "), chunk("wor"), done=False), raw_sse(chunk("ld"), done=False))
    done = run_hive("run", "explain", *model_args(llm_server, tmp_path))
    assert done.returncode == 1
    assert "broke off after 9 characters: the stream ended unfinished" in done.stderr
    assert "broke off after 2 characters: the stream ended unfinished" in done.stderr


def test_an_html_page_with_status_200_exits_1_quoting_it(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(raw(b"<html><body>Please sign in</body></html>", content_type="text/html"))
    done = run_hive("run", "explain", *model_args(llm_server, tmp_path))
    assert done.returncode == 1
    for part in ("HTTP 200", "text/html", "<html><body>Please sign in", llm_server.base_url):
        assert part in done.stderr


def test_an_unknown_provider_exits_2_at_once_naming_the_flag(llm_server: LLMServer, tmp_path: Path) -> None:
    args = model_args(llm_server, tmp_path)
    args[1] = "nosuchprovider/model-x"
    done = run_hive("run", "explain", *args)
    assert done.returncode == 2
    assert done.stderr.startswith("hive: --model is 'nosuchprovider/model-x', but the provider 'nosuchprovider'")
    assert "retrying" not in done.stderr and llm_server.chat_requests == []


def test_an_api_base_in_settings_that_is_not_a_url_exits_2_naming_it(tmp_path: Path) -> None:
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "settings.yaml").write_text("model: openai/m\napi_base: localhost 8080\n")
    trust(tmp_path)
    done = run_hive("run", "explain", "-C", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.startswith("hive: api_base in the project settings is 'localhost 8080', which is not a URL")


def test_a_server_that_streams_no_usage_gives_estimates_and_one_model_name(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(raw_sse(chunk("Hi", "stop")))
    done = run_hive("run", "hello", "-o", "json", *model_args(llm_server, tmp_path))
    assert done.returncode == 0, done.stderr
    usage = json.loads(done.stdout)["usage"]
    assert usage["total"]["estimated"] is True and usage["total"]["reasoning_tokens"] is None
    assert usage["total"]["prompt_tokens"] > 0 and usage["total"]["completion_tokens"] > 0
    assert (usage["model"], usage["reported_model"]) == ("openai/test-model", "test-model")

    llm_server.script(stream_cut(after=2), stream_cut(after=2))
    failed = json.loads(run_hive("run", "hello", "-o", "json", *model_args(llm_server, tmp_path)).stdout)
    assert failed["usage"]["model"] == "openai/test-model"


def test_json_text_is_the_whole_answer_not_only_the_last_turn(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(
        tool_calls(call("list_directory", {}), text="First I look around."),
        text("Then I answer.", usage=Usage(prompt_tokens=9, completion_tokens=3)),
    )
    done = run_hive("run", "look", "-o", "json", *model_args(llm_server, tmp_path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["text"] == "First I look around.\n\nThen I answer."


def test_json_text_keeps_what_arrived_of_a_cut_reply_as_the_text_output_shows_it(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    cut = stream_cut("Partial answer here", after=3), stream_cut("again", after=2)
    llm_server.script(*cut)
    shown = run_hive("run", "explain", *model_args(llm_server, tmp_path))
    llm_server.script(*cut)
    done = run_hive("run", "explain", "-o", "json", *model_args(llm_server, tmp_path))
    assert shown.returncode == done.returncode == 1
    assert shown.stdout.strip() == "Partial agai"  # two 4-character pieces, then two of the resumed reply's
    assert json.loads(done.stdout)["text"] == shown.stdout.strip()


def test_json_text_after_a_tool_turn_and_a_cut_reply_has_both(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(
        tool_calls(call("list_directory", {}), text="First I look around."),
        stream_cut("Then I answer.", after=3),
        stream_cut("again", after=2),
    )
    done = run_hive("run", "look", "-o", "json", *model_args(llm_server, tmp_path))
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["text"] == "First I look around.\n\nThen I aagai"


def test_stream_json_text_is_the_last_reply_never_an_earlier_turn(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("list_directory", {}), text="First I look around."), auth_error())
    done = run_hive("run", "look", "-o", "stream-json", *model_args(llm_server, tmp_path))
    finished = json.loads(done.stdout.splitlines()[-1])
    assert finished["type"] == "session_finished" and finished["exit_reason"] == "error"
    assert finished["text"] == ""

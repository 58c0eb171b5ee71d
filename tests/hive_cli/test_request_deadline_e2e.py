"""Issue #43: ``request_timeout`` bounds a slow reply, and a stream closed inside an event is a cut stream.

The real ``hive run`` against a scripted server that trickles its reply one byte at a time (the whole reply
would take minutes) or closes the stream in the middle of an event. Judged by what the server received and
by what hive reports, never by how long it took.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.support.cli import json_lines, run_hive
from tests.support.llm_server import LLMServer, stream_cut_mid_event, text, trickled

LONG_ANSWER = "A long answer that a slow server sends one byte at a time. " * 20
"""Tens of kilobytes of events: at 50 ms a byte the trickle would take minutes."""


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def set_request_timeout(seconds: float) -> None:
    """``request_timeout`` in the person's own settings (no project to trust)."""
    settings = Path(os.environ["HIVE_HOME"]) / "config" / "settings.yaml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(f"request_timeout: {seconds:g}\n", encoding="utf-8")


def test_a_trickling_reply_ends_at_request_timeout_and_is_tried_four_times_as_documented(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    set_request_timeout(1)
    llm_server.script(*(trickled(text(LONG_ANSWER), 0.05) for _ in range(4)))
    done = run_hive("run", "explain", "-o", "stream-json", *model_args(llm_server, tmp_path))
    assert done.returncode == 1, done.stderr
    events = json_lines(done.stdout)
    retries = [event for event in events if event["type"] == "retrying"]
    assert [(retry["attempt"], retry["category"], retry["resumed"]) for retry in retries] == [
        (1, "transient", False),
        (2, "transient", False),
        (3, "transient", False),
    ]
    assert all("did not finish within request_timeout 1s" in retry["message"] for retry in retries)
    finished = events[-1]
    assert finished["type"] == "session_finished" and finished["exit_reason"] == "error"
    assert len(llm_server.chat_requests) == 4  # "up to 4 attempts in all" (docs/error-recovery.md)
    failure = " ".join(str(event) for event in events if event["type"] == "error")
    assert "did not finish within request_timeout 1s" in failure and "request_timeout" in failure
    assert "not JSON" not in done.stdout + done.stderr


def test_what_streamed_before_request_timeout_is_kept_and_the_reply_resumed(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    set_request_timeout(5)  # the first 8 events come at once, even on a loaded machine
    llm_server.script(trickled(text(LONG_ANSWER), 0.05, after=8), text(" and the rest."))
    done = run_hive("run", "explain", *model_args(llm_server, tmp_path))
    assert done.returncode == 0, done.stderr
    answer = done.stdout.strip()
    kept = answer.removesuffix(" and the rest.")
    assert kept != answer and kept and LONG_ANSWER.startswith(kept)
    note = llm_server.chat_requests[1].messages[-1]["content"]
    assert note.startswith("Your previous reply was cut off after") and kept[-20:] in note
    assert f"broke off after {len(kept)} characters: did not finish within request_timeout 5s" in done.stderr
    assert "resuming where it stopped" in done.stderr


def test_a_reply_cut_by_request_timeout_twice_is_the_documented_failure_in_json(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    set_request_timeout(5)  # the first 8 events come at once, even on a loaded machine
    llm_server.script(*(trickled(text(LONG_ANSWER), 0.05, after=8) for _ in range(2)))
    done = run_hive("run", "explain", "-o", "json", *model_args(llm_server, tmp_path))
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["exit_reason"] == "error" and result["text"] and len(llm_server.chat_requests) == 2
    assert "did not finish within request_timeout 5s (settings.yaml)" in result["error"]
    assert "raise request_timeout in settings.yaml" in result["fix"]


def test_a_stream_closed_inside_its_first_event_is_retried_as_a_cut_stream(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(stream_cut_mid_event(after=0), text("Whole answer."))
    done = run_hive("run", "explain", *model_args(llm_server, tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Whole answer." and len(llm_server.chat_requests) == 2
    assert "not JSON" not in done.stderr and "retrying" in done.stderr


def test_a_stream_closed_inside_an_event_after_text_is_resumed_from_the_text(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(stream_cut_mid_event("The answer is forty", after=3), text("-two."))
    done = run_hive("run", "explain", *model_args(llm_server, tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "The answ-two."  # the role chunk and two 4-character pieces, then the rest
    assert "the stream closed inside an event" in done.stderr and "not JSON" not in done.stderr

"""One process at a time writes a session: a second `hive run --resume` (or REPL) of a session in use is refused."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from engine.session_store import SessionStore
from tests.support.cli import hive_env, run_hive
from tests.support.llm_server import HeldReply, LLMServer, Reply, text
from tests.support.terminal import PROMPT, exit_status, leave_repl, model_args, send_line, spawn_hive, spawn_repl

BOUND_S = 60  # only a failure ever waits this long


def args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "-C", str(workdir)]


def held(reply: Reply, reached: threading.Event, release: threading.Event) -> Callable[[dict[str, Any]], Reply]:
    """A scripted reply the server sends only once the test lets it go (``reached`` says the request came)."""

    def answer(body: dict[str, Any]) -> Reply:
        reached.set()
        release.wait(BOUND_S)
        return reply

    return answer


@contextmanager
def hive_in_background(*hive_args: str) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "hive_cli", *hive_args],
        env=hive_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


def contents(server: LLMServer, index: int) -> list[str]:
    return [str(m.get("content")) for m in server.chat_requests[index].messages[1:]]


def test_a_second_resume_of_a_session_in_use_exits_2_naming_the_holder_and_sends_nothing(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(text("First."))
    first = run_hive("run", "c0", "-o", "json", *args(llm_server, tmp_path))
    assert first.returncode == 0, first.stderr
    sid = str(json.loads(first.stdout)["session_id"])

    reached, release = threading.Event(), threading.Event()
    llm_server.script(held(text("Answer to c1."), reached, release))
    with hive_in_background("run", "c1", "--resume", sid, *args(llm_server, tmp_path)) as holder:
        assert reached.wait(BOUND_S), "the first process never sent its request"
        second = run_hive("run", "c2", "--resume", sid, *args(llm_server, tmp_path))
        repl = run_hive("--resume", sid, *args(llm_server, tmp_path), stdin="c3\n")
        release.set()
        out, err = holder.communicate(timeout=BOUND_S)
        assert holder.returncode == 0, err

    assert second.returncode == 2
    assert f"session {sid} is in use by hive process {holder.pid}" in second.stderr
    assert "Traceback" not in second.stderr
    assert repl.returncode == 2 and f"hive process {holder.pid}" in repl.stderr
    assert len(llm_server.chat_requests) == 2  # the refused ones sent nothing

    llm_server.script(text("Third."))
    after = run_hive("run", "c4", "--resume", sid, *args(llm_server, tmp_path))
    assert after.returncode == 0, after.stderr
    assert contents(llm_server, 2) == ["c0", "First.", "c1", "Answer to c1.", "c4"]


def test_the_lock_goes_with_the_process_that_held_it(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("First."), text("Second."))
    first = run_hive("run", "c0", "-o", "json", *args(llm_server, tmp_path))
    sid = str(json.loads(first.stdout)["session_id"])
    again = run_hive("run", "c1", "--resume", sid, *args(llm_server, tmp_path))
    assert again.returncode == 0, again.stderr
    sessions = Path(os.environ["HIVE_HOME"]) / "data" / "sessions"
    assert [info.id for info in SessionStore(sessions).list()] == [sid]
    assert sorted(p.name for p in sessions.iterdir()) == [f"{sid}.jsonl"]  # no lock file is left behind


def test_the_repl_resuming_a_session_holds_it_and_is_refused_one_in_use(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("First."))
    first = run_hive("run", "c0", "-o", "json", *args(llm_server, tmp_path))
    sid = str(json.loads(first.stdout)["session_id"])

    repl = spawn_hive(*model_args(llm_server, tmp_path), "--resume", sid)
    repl.expect(PROMPT)  # resumed, nothing sent yet: the session is held all the same
    refused = run_hive("run", "c1", "--resume", sid, *args(llm_server, tmp_path))
    assert refused.returncode == 2 and f"hive process {repl.pid}" in refused.stderr
    assert leave_repl(repl) == 0

    reached, release = threading.Event(), threading.Event()
    llm_server.script(held(text("Answer to c1."), reached, release))
    with hive_in_background("run", "c1", "--resume", sid, *args(llm_server, tmp_path)) as holder:
        assert reached.wait(BOUND_S), "the first process never sent its request"
        second = spawn_hive(*model_args(llm_server, tmp_path), "--resume", sid)
        status = exit_status(second)
        third = spawn_repl(llm_server, tmp_path)  # already running when it asks: told, and it goes on
        send_line(third, f"/resume {sid}")
        third.expect(f"hive process {holder.pid}")
        third.expect(PROMPT)
        release.set()
        holder.communicate(timeout=BOUND_S)
    assert status == 2 and f"hive process {holder.pid}" in str(second.before)
    assert leave_repl(third) == 0
    assert len(llm_server.chat_requests) == 2


def records_after_the_first_run(session_file: Path, first_run_lines: int) -> list[dict[str, Any]]:
    return [json.loads(line) for line in session_file.read_text().splitlines()[first_run_lines:]]


def test_two_resumes_at_once_one_runs_the_other_exits_2_and_the_file_holds_the_winners_records_only(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    llm_server.script(text("First."))
    first = run_hive("run", "c0", "-o", "json", *args(llm_server, tmp_path))
    sid = str(json.loads(first.stdout)["session_id"])
    session_file = isolated_hive / "data" / "sessions" / f"{sid}.jsonl"
    first_run_lines = len(session_file.read_text().splitlines())

    answer = HeldReply(text("The winner's answer."), guard_s=BOUND_S)
    llm_server.script(answer, text("Sent to a second writer: never."))
    with (
        hive_in_background("run", "from A", "--resume", sid, *args(llm_server, tmp_path)) as a,
        hive_in_background("run", "from B", "--resume", sid, *args(llm_server, tmp_path)) as b,
        ThreadPoolExecutor(2) as pool,
    ):
        ends = {pool.submit(process.communicate, timeout=BOUND_S): process for process in (a, b)}
        done, _ = wait(ends, timeout=BOUND_S, return_when=FIRST_COMPLETED)  # the winner is held at the model
        [loser_end] = done
        loser = ends[loser_end]
        winner = b if loser is a else a
        answer.wait_arrived()
        answer.release()
        winner_end = next(end for end in ends if end is not loser_end)
        assert winner_end.result(BOUND_S) is not None and winner.returncode == 0
    tasks = {a.pid: "from A", b.pid: "from B"}

    assert loser.returncode == 2
    said = loser_end.result()[1]
    # The winner writes its pid just after it locks: a loser that comes in between cannot name it (the
    # test above checks the name when the holder is settled).
    assert f"session {sid} is in use by hive process {winner.pid}" in said or (
        f"session {sid} is in use by another hive process" in said
    )
    records = records_after_the_first_run(session_file, first_run_lines)
    assert [r["type"] for r in records] == ["resumed", "message", "message"]
    assert [r["message"]["content"] for r in records[1:]] == [tasks[winner.pid], "The winner's answer."]
    assert tasks[loser.pid] not in session_file.read_text()
    assert len(llm_server.chat_requests) == 2  # the loser sent nothing


def test_a_writer_killed_holding_the_session_does_not_block_the_next_resume(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    llm_server.script(text("First."))
    first = run_hive("run", "c0", "-o", "json", *args(llm_server, tmp_path))
    sid = str(json.loads(first.stdout)["session_id"])
    lock = isolated_hive / "data" / "sessions" / f"{sid}.lock"

    answer = HeldReply(text("Never read."), guard_s=BOUND_S)
    llm_server.script(answer)
    with hive_in_background("run", "c1", "--resume", sid, *args(llm_server, tmp_path)) as holder:
        answer.wait_arrived()
        assert lock.read_text().strip() == str(holder.pid)
        holder.send_signal(signal.SIGKILL)
        assert holder.wait(BOUND_S) == -signal.SIGKILL
    answer.release()
    assert lock.exists()  # a killed process cleans nothing up: the file stays, its lock went with the process

    llm_server.script(text("After the kill."))
    after = run_hive("run", "c2", "--resume", sid, *args(llm_server, tmp_path))
    assert after.returncode == 0, after.stderr
    assert contents(llm_server, 2) == ["c0", "First.", "c1", "c2"]
    assert not lock.exists()

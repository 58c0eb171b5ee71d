"""`hive run` without a terminal, stopped by SIGTERM or SIGHUP: the command goes with it, the status says why."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import hive_env, json_lines, run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.processes import gone_within, unique_sleep
from tests.support.terminal import model_args, wait_for_process


@pytest.mark.parametrize(("sent", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["sigterm", "sighup"])
@pytest.mark.parametrize("sandbox", ["off", "workspace-write"])
def test_an_ending_signal_stops_the_running_command_and_exits_with_its_status(
    llm_server: LLMServer, tmp_path: Path, sent: signal.Signals, status: int, sandbox: str
) -> None:
    sleep = unique_sleep()
    llm_server.script(tool_calls(call("execute_command", {"command": sleep})), text("not reached"))
    command = [sys.executable, "-m", "hive_cli", "run", "wait", "--yes", "--sandbox", sandbox, "-o", "stream-json"]
    process = subprocess.Popen(
        [*command, *model_args(llm_server, tmp_path)],
        env=hive_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_process(sleep)
        process.send_signal(sent)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert gone_within(sleep, 5), f"{sent.name} left the command running"
    assert process.returncode == status, stderr
    assert f"hive: stopped by {sent.name}" in stderr and "Traceback" not in stderr
    last = json_lines(stdout)[-1]
    assert last["type"] == "session_finished" and last["exit_reason"] == "cancelled"


def test_json_and_stream_json_give_each_call_its_wait_apart_from_its_run_time(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    write = call("write_file", {"path": "a.md", "content": "a\n"})
    llm_server.script(tool_calls(write), text("done"), tool_calls(write), text("done"))
    streamed = run_hive("run", "write", "--yes", "-o", "stream-json", *model_args(llm_server, tmp_path))
    finished = next(line for line in json_lines(streamed.stdout) if line["type"] == "tool_call_finished")
    assert finished["waited_s"] == 0.0 and finished["duration_s"] >= 0.0  # --yes: nobody was waited for
    whole = run_hive("run", "write", "--yes", "-o", "json", *model_args(llm_server, tmp_path))
    result = json.loads(whole.stdout)
    assert [c["waited_s"] for c in result["tool_calls"]] == [0.0]
    assert [c["waited_s"] for c in result["usage"]["tool_calls"]] == [0.0]

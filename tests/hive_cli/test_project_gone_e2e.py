"""A project folder removed (or replaced) while a run works is not made again: the next tool call stops the run."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import hive_env
from tests.support.llm_server import HeldReply, LLMServer, call, text, tool_calls

BOUND_S = 60  # only a failure ever waits this long


@pytest.mark.parametrize("replaced", [False, True], ids=["removed", "replaced"])
def test_the_next_tool_call_stops_the_run_and_nothing_is_made_again(
    llm_server: LLMServer, tmp_path: Path, replaced: bool
) -> None:
    project = tmp_path / "work" / "project"
    project.mkdir(parents=True)
    second = HeldReply(tool_calls(call("write_file", {"path": "src/b.txt", "content": "two"})))
    llm_server.script(tool_calls(call("write_file", {"path": "a.txt", "content": "one"})), second, text("All written."))
    args = ["run", "write two files", "--yes", "--model", "openai/test-model", "--api-base", llm_server.base_url]
    process = subprocess.Popen(
        [sys.executable, "-m", "hive_cli", *args, "-C", str(project)],
        env=hive_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        second.wait_arrived()  # the first write is done: the model is choosing the next call
        assert (project / "a.txt").read_text() == "one"
        shutil.rmtree(project)
        if replaced:
            project.mkdir()
        second.release()
        out, err = process.communicate(timeout=BOUND_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()

    assert process.returncode == 1, (out, err)
    assert f"the project folder {project} was removed or replaced during the run; stopping" in err
    assert "Traceback" not in err
    assert len(llm_server.chat_requests) == 2, "the model was asked again after the folder was gone"
    if replaced:
        assert list(project.iterdir()) == [], "the new folder of the same name was written into"
    else:
        assert not project.exists(), "the removed project folder was made again"

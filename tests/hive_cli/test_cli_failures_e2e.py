"""`hive run` failing honestly at its edges (issue #11): empty tasks, `-` for stdin, a closed stdout, an
unusable HIVE_HOME, and a truncated command's full output the model can read back."""

from __future__ import annotations

import os
import re
import shlex
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.support.cli import hive_env, run_hive
from tests.support.llm_server import LLMServer, Reply, call, text, tool_calls


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def assert_usage_error(done: subprocess.CompletedProcess[str], server: LLMServer) -> None:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hive: "), done.stderr
    assert "Traceback" not in done.stderr
    assert server.chat_requests == []


@pytest.mark.parametrize("task", ["", "   "])
def test_an_empty_task_is_a_usage_error_and_no_request_is_sent(
    llm_server: LLMServer, tmp_path: Path, task: str
) -> None:
    llm_server.script(text("should not be asked"))
    done = run_hive("run", task, *model_args(llm_server, tmp_path))
    assert_usage_error(done, llm_server)
    assert "empty" in done.stderr


def test_a_dash_task_is_read_from_stdin_and_empty_stdin_is_a_usage_error(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Read it."))
    done = run_hive("run", "-", *model_args(llm_server, tmp_path), stdin="  list the files\nplease\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Read it.\n"
    assert llm_server.chat_requests[0].messages[-1]["content"] == "list the files\nplease"

    for stdin in ("", " \n\n"):
        llm_server.requests.clear()
        llm_server.script(text("should not be asked"))
        empty = run_hive("run", "-", *model_args(llm_server, tmp_path), stdin=stdin)
        assert_usage_error(empty, llm_server)
        assert "stdin" in empty.stderr

    shown = run_hive("run", "--help")
    assert shown.returncode == 0, shown.stderr
    assert "Give - to read it from stdin." in shown.stdout
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert "`hive run -` reads the task from stdin" in readme


def test_a_closed_stdout_gives_one_line_and_no_traceback(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("An answer nobody can read."))
    args = " ".join(shlex.quote(a) for a in ["run", "say something", *model_args(llm_server, tmp_path)])
    done = subprocess.run(
        f"{shlex.quote(sys.executable)} -m hive_cli {args} >&-",
        shell=True,
        env=hive_env(),
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == ["hive: standard output is closed"]
    assert llm_server.chat_requests == []


def unusable_homes(tmp_path: Path) -> list[tuple[str, Path]]:
    """HIVE_HOME under a regular file, and (when permissions hold for this user) a read-only folder."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    homes = [("under a file", blocker / "home")]
    if os.geteuid() != 0:
        read_only = tmp_path / "read-only"
        read_only.mkdir()
        read_only.chmod(stat.S_IRUSR | stat.S_IXUSR)
        homes.append(("read-only", read_only))
    return homes


def test_an_unusable_hive_home_is_a_configuration_error_naming_the_folder(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    workdir = tmp_path / "project"
    workdir.mkdir()
    for _label, home in unusable_homes(tmp_path):
        llm_server.script(text("should not matter"))
        done = run_hive("run", "hello", *model_args(llm_server, workdir), HIVE_HOME=str(home))
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        assert "internal error" not in done.stderr and "Traceback" not in done.stderr
        assert str(home) in lines[0] and "HIVE_HOME" in lines[0]
        assert "cannot be created or written" in lines[0]
        llm_server.script()


def read_the_named_file(body: dict[str, Any]) -> Reply:
    """Read back the path the last tool result names as holding the full output."""
    note = body["messages"][-1]["content"]
    found = re.search(r"the full output is saved in (\S+?); read it with read_file", note)
    assert found, note
    return tool_calls(call("read_file", {"path": found.group(1), "offset": 1, "limit": 5}, id="read"))


def test_a_truncated_commands_full_output_is_readable_inside_the_project_and_ignored_by_git(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "big.log").write_text("".join(f"line {i:06d}\n" for i in range(8000)))
    command = "cat big.log"
    llm_server.script(
        tool_calls(call("execute_command", {"command": command}, id="run")),
        read_the_named_file,
        text("Read the full output."),
    )
    done = run_hive("run", "print a lot", "-o", "json", *model_args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    note = llm_server.chat_requests[1].messages[-1]["content"]
    path = re.search(r"the full output is saved in (\S+?);", note).group(1)  # type: ignore[union-attr]
    assert path.startswith(".hive/outputs/") and not Path(path).is_absolute()
    read_result = llm_server.chat_requests[2].messages[-1]
    assert read_result["tool_call_id"] == "read"
    assert "line 000000" in read_result["content"], read_result["content"]
    assert (tmp_path / ".hive" / "outputs" / ".gitignore").read_text() == "*\n"
    ignored = subprocess.run(["git", "check-ignore", "-q", path], cwd=tmp_path, check=False)
    assert ignored.returncode == 0
    status = subprocess.run(["git", "status", "--porcelain"], cwd=tmp_path, capture_output=True, text=True)
    assert ".hive" not in status.stdout


def test_the_repl_with_an_unusable_hive_home_says_so_in_one_line(llm_server: LLMServer, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    args = ["-m", "hive_cli", *model_args(llm_server, tmp_path)]
    child = pexpect.spawn(
        sys.executable, args, env=hive_env(HIVE_HOME=str(blocker / "home")), encoding="utf-8", timeout=30
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    lines = child.before.strip().splitlines()
    assert len(lines) == 1 and "cannot be created or written" in lines[0] and "HIVE_HOME" in lines[0], lines


def test_a_piped_task_that_is_a_lone_dash_is_that_task_not_a_second_read(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("ok"))
    args = ["--model", "openai/test-model", "--api-base", llm_server.base_url, "-C", str(tmp_path)]
    done = run_hive(*args, stdin="-\n")
    assert done.returncode == 0, done.stderr
    assert llm_server.chat_requests[0].messages[-1] == {"role": "user", "content": "-"}

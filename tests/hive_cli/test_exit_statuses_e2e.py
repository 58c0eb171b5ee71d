"""Issue #31's wrong exit statuses: each input gets its documented status and one clear line, never
"internal error" or a silent success."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import hive_env, run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def assert_usage_error(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hive: "), done.stderr
    for word in words:
        assert word in lines[0], done.stderr


def run_with_stderr(args: list[str], stderr: int | str) -> subprocess.CompletedProcess[str]:
    """Run hive with its stderr a given descriptor, or (a string) redirected by the shell."""
    command = [sys.executable, "-m", "hive_cli", *args]
    if isinstance(stderr, str):
        return subprocess.run(
            f"{shlex.join(command)} {stderr}", shell=True, env=hive_env(), capture_output=True, text=True, timeout=90
        )
    return subprocess.run(command, env=hive_env(), stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=90)


def test_a_successful_run_whose_stderr_is_gone_still_answers_and_exits_0(llm_server: LLMServer, tmp_path: Path) -> None:
    """The tool log goes to stderr: its reader gone, or the device full, the run still finishes."""
    for _ in range(3):
        llm_server.script(tool_calls(call("execute_command", {"command": "echo hi"})), text("All done."))
    args = ["run", "say hi", "-y", *model_args(llm_server, tmp_path)]
    reader, writer = os.pipe()
    os.close(reader)
    try:
        gone = run_with_stderr(args, writer)
    finally:
        os.close(writer)
    assert (gone.returncode, gone.stdout) == (0, "All done.\n")
    full = run_with_stderr(args, "2>/dev/full")
    assert (full.returncode, full.stdout) == (0, "All done.\n")
    closed = run_with_stderr(args, "2>&-")
    assert (closed.returncode, closed.stdout) == (0, "All done.\n")
    assert llm_server.remaining == 0


def test_a_task_that_is_not_utf8_is_a_usage_error_and_nothing_is_sent(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("should not be asked"))
    task = b"fix \xff\xfe this".decode("utf-8", "surrogateescape")
    assert_usage_error(run_hive("run", task, *model_args(llm_server, tmp_path)), "not UTF-8")
    piped = subprocess.run(
        [sys.executable, "-m", "hive_cli", *model_args(llm_server, tmp_path)],
        env=hive_env(),
        input=b"fix \xff this\n",
        capture_output=True,
        timeout=90,
    )
    assert piped.returncode == 2, piped.stderr
    assert b"not UTF-8" in piped.stderr and b"internal error" not in piped.stderr
    assert llm_server.chat_requests == []


@pytest.mark.parametrize("where", ["user", "project"])
def test_a_settings_file_that_is_a_folder_is_a_config_error(llm_server: LLMServer, tmp_path: Path, where: str) -> None:
    llm_server.script(text("should not be asked"))
    workdir = tmp_path / "project"
    workdir.mkdir()
    config = Path(os.environ["HIVE_HOME"]) / "config" if where == "user" else workdir / ".ironhive"
    (config / "settings.yaml").mkdir(parents=True)
    done = run_hive("run", "hi", "--trust-project", *model_args(llm_server, workdir))
    assert done.returncode == 2, done.stderr
    assert f"{config / 'settings.yaml'}: is a folder" in done.stderr
    assert llm_server.chat_requests == []


def test_mcp_add_with_transport_stdio_and_a_url_is_a_usage_error(tmp_path: Path) -> None:
    done = run_hive("mcp", "add", "x", "--transport", "stdio", "http://127.0.0.1:9/mcp", "-C", str(tmp_path))
    assert_usage_error(done, "is a URL", "--transport http")
    assert not (tmp_path / ".ironhive" / "plugins.yaml").exists()


def test_bare_hive_takes_run_s_output_format_for_a_piped_task(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Piped answer."))
    done = run_hive("-o", "json", *model_args(llm_server, tmp_path), stdin="say something\n")
    assert done.returncode == 0, done.stderr
    assert '"text": "Piped answer."' in done.stdout


def test_continue_and_resume_together_conflict(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("should not be asked"))
    for args in (["run", "hi"], []):
        done = run_hive(*args, "--continue", "--resume", "X", *model_args(llm_server, tmp_path), stdin="hi\n")
        assert_usage_error(done, "--continue", "--resume")
    assert llm_server.chat_requests == []


@pytest.mark.parametrize("tool", ["bash", "write", "read_file"])
def test_permissions_check_without_the_judged_argument_is_a_usage_error(tmp_path: Path, tool: str) -> None:
    done = run_hive("permissions", "check", tool, "-C", str(tmp_path))
    assert_usage_error(done, "needs its")
    assert done.stdout == ""

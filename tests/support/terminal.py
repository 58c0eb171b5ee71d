"""The real ``hive`` program in a real pseudo-terminal (pexpect), pointed at the scripted model server."""

from __future__ import annotations

import sys
import termios
import time
from pathlib import Path

import pexpect

from tests.support.cli import hive_env
from tests.support.llm_server import LLMServer
from tests.support.processes import processes_with

TIMEOUT = 60
PROMPT = "›"
QUESTION = "waiting for you"
"""What the approval question says while it waits for a key."""


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    """The flags that point hive at ``server`` and work in ``workdir``."""
    return ["--model", "openai/test-model", "--api-base", server.base_url, "-C", str(workdir)]


def spawn_hive(*args: str, keep_output_on_ctrl_c: bool = False) -> pexpect.spawn:
    """``python -m hive_cli ARGS`` at a 30x100 terminal.

    A terminal discards what the program wrote and the test has not read yet when Ctrl-C is typed (the
    kernel flushes the queues on INTR); ``keep_output_on_ctrl_c`` sets ``NOFLSH`` so a test that presses
    Ctrl-C while output is in flight still reads all of it.
    """
    return pexpect.spawn(
        sys.executable,
        ["-m", "hive_cli", *args],
        env=hive_env(TERM="xterm-256color", COLUMNS="100", LINES="30", PROMPT_TOOLKIT_NO_CPR="1"),
        encoding="utf-8",
        dimensions=(30, 100),
        timeout=TIMEOUT,
        preexec_fn=_no_flush_on_interrupt if keep_output_on_ctrl_c else None,
    )


def _no_flush_on_interrupt() -> None:
    """In the child, before the program starts: Ctrl-C no longer flushes the terminal's queues."""
    attributes = termios.tcgetattr(0)
    attributes[3] |= termios.NOFLSH
    termios.tcsetattr(0, termios.TCSANOW, attributes)


def spawn_repl(server: LLMServer, workdir: Path, *extra: str, keep_output_on_ctrl_c: bool = False) -> pexpect.spawn:
    """The REPL, once its prompt is up (``keep_output_on_ctrl_c``: see :func:`spawn_hive`)."""
    child = spawn_hive(*model_args(server, workdir), *extra, keep_output_on_ctrl_c=keep_output_on_ctrl_c)
    child.expect(PROMPT)
    return child


def spawn_run(server: LLMServer, workdir: Path, task: str, *extra: str) -> pexpect.spawn:
    """``hive run TASK`` at a terminal (so it asks its approvals there)."""
    return spawn_hive("run", task, *model_args(server, workdir), *extra)


def send_line(child: pexpect.spawn, line: str) -> None:
    """Type ``line`` and press Enter."""
    child.send(line)
    child.send("\r")


def wait_for_process(marker: str, seconds: float = TIMEOUT) -> None:
    """Return once a process whose command line contains ``marker`` runs."""
    deadline = time.monotonic() + seconds
    while not processes_with(marker):
        assert time.monotonic() < deadline, f"no process with {marker!r} started"
        time.sleep(0.05)


def close_terminal(child: pexpect.spawn, seconds: float = TIMEOUT) -> int | None:
    """Close the terminal as a closed window does (the program gets SIGHUP); its exit status once it ends.

    The exit status is negative when a signal killed the program; None when it did not end in time.
    """
    process = child.ptyproc
    process.fileobj.close()  # the master side: the kernel hangs the terminal up
    process.closed, process.fd = True, -1
    child.closed, child.child_fd = True, -1
    deadline = time.monotonic() + seconds
    while process.isalive():
        if time.monotonic() > deadline:
            return None
        time.sleep(0.05)
    return process.exitstatus if process.signalstatus is None else -process.signalstatus


def exit_status(child: pexpect.spawn) -> int | None:
    """Wait for the program to end; its exit status (negative: the signal that killed it)."""
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus if child.signalstatus is None else -child.signalstatus


def leave_repl(child: pexpect.spawn, tries: int = 10) -> int | None:
    """Press Ctrl-D until the REPL ends; its exit status.

    A Ctrl-D that lands while prompt-toolkit prints above the prompt (the terminal is in cooked mode
    for that moment) is taken by the terminal itself as end-of-file and never reaches hive: press again.
    """
    for _ in range(tries):
        child.sendcontrol("d")
        if child.expect([pexpect.EOF, pexpect.TIMEOUT], timeout=3) == 0:
            child.close()
            return child.exitstatus if child.signalstatus is None else -child.signalstatus
    raise AssertionError("the REPL did not end on Ctrl-D")

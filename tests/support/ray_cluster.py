"""A real local Ray cluster for tests and benchmarks: `ray start --head --block` on a free port, in a temp dir of its own.

Nothing lands in the real home (HOME is a temp folder), token authentication is off for head and drivers
alike (``RAY_AUTH_MODE=disabled``), usage stats are off, no dashboard, and every address is loopback. The head runs in a session of its own:
stopping it ends that session's processes only (never ``ray stop``, which ends every Ray on the machine).
Workers inherit the head's environment, so ``worker_env`` is what the hive on a worker sees (the test's
network block, its own HIVE_HOME); a driver needs ``driver_env`` in its environment to attach.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.cli import hive_env
from tests.support.processes import true_within

_STARTED = "Ray runtime started."
_RAY_ENV = {
    "RAY_AUTH_MODE": "disabled",
    "RAY_USAGE_STATS_ENABLED": "0",
    # One machine: every Ray address is loopback (Ray's own switch for laptops), so the network block allows it.
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
}
_KEPT_OUT = ("HIVE_API_KEY", "HIVE_MODEL", "HIVE_API_BASE", "RAY_ADDRESS", "OPENAI_API_KEY")


@dataclass(frozen=True)
class RayHead:
    """A running head: its address, its folders and the process that holds it."""

    address: str
    root: Path
    process: subprocess.Popen[str]

    @property
    def home(self) -> Path:
        return self.root / "home"

    def driver_env(self) -> dict[str, str]:
        """What a driver's environment needs to attach to this head (and leave the real home alone)."""
        return {"HOME": str(self.home), **_RAY_ENV}

    def session_pids(self) -> list[int]:
        """The live processes of the head's session: the head, its daemons and its workers."""
        return [pid for pid, session, _ in _processes() if session == self.process.pid]

    def task_worker(self, task_name: str) -> int | None:
        """The pid of the worker running the Ray task named ``task_name`` (its title is ``ray::NAME``), if any."""
        for pid, session, title in _processes():
            if session == self.process.pid and title.split(" ", 1)[0] == f"ray::{task_name}":
                return pid
        return None

    def children_of(self, pid: int) -> list[int]:
        """The live processes ``pid`` started."""
        return [child for child, parent in _parents() if parent == pid]

    def gone(self, pid: int, within_s: float = 30) -> bool:
        """True once ``pid`` has ended (checked until ``within_s`` pass: a failure guard only)."""
        return true_within(lambda: not _alive(pid), within_s)

    def kill_task_worker(self, task_name: str) -> None:
        """Kill the worker running ``task_name`` as a crash would (SIGKILL), then the processes it had started."""
        worker = self.task_worker(task_name)
        assert worker is not None, f"no worker runs {task_name}"
        for pid in (worker, *self.children_of(worker)):
            _kill(pid)


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def ray_head(*, num_cpus: int = 2, worker_env: dict[str, str] | None = None) -> Iterator[RayHead]:
    """Start a head (``num_cpus`` CPUs), yield it once it says it started, and stop its whole session after."""
    root = Path(tempfile.mkdtemp(prefix="hive-ray-"))  # short: Ray's socket paths live under its temp dir
    (root / "home").mkdir()
    port = free_port()
    env = {k: v for k, v in hive_env(**(worker_env or {})).items() if k not in _KEPT_OUT}
    env.update({"HOME": str(root / "home"), **_RAY_ENV})
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "ray"), "start", "--head", "--block", f"--port={port}",
         f"--temp-dir={root / 'ray'}", f"--num-cpus={num_cpus}", "--include-dashboard=false",
         "--disable-usage-stats"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    head = RayHead(address=f"127.0.0.1:{port}", root=root, process=process)
    try:
        _wait_started(process)
        yield head
    finally:
        _stop(head)
        shutil.rmtree(root, ignore_errors=True)


def _wait_started(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    said = []
    for line in process.stdout:
        said.append(line)
        if _STARTED in line:
            return
    raise AssertionError("ray start --head ended before the runtime started:\n" + "".join(said[-20:]))


def _stop(head: RayHead) -> None:
    """SIGTERM to the blocking ``ray start`` ends its daemons; whatever of its session is left is killed."""
    head.process.send_signal(signal.SIGTERM)
    try:
        head.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        head.process.kill()
        head.process.wait()
    deadline = time.monotonic() + 10
    while (left := head.session_pids()) and time.monotonic() < deadline:
        for pid in left:
            _kill(pid)
        time.sleep(0.05)
    if head.process.stdout is not None:
        head.process.stdout.close()


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _parents() -> Iterator[tuple[int, int]]:
    """(pid, parent pid) of every process."""
    for proc in Path("/proc").iterdir():
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError, ValueError):
            continue
        if proc.name.isdigit() and fields[0] != "Z":
            yield int(proc.name), int(fields[1])


def _processes() -> Iterator[tuple[int, int, str]]:
    """(pid, session id, command line) of every live process."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue
        if fields[0] != "Z":
            yield int(proc.name), int(fields[3]), cmdline.strip()

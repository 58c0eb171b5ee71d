"""Finding processes by their command line, on the whole machine (pids inside a sandbox differ from ours)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from pathlib import Path


def unique_sleep(seconds: int = 60) -> str:
    """A ``sleep`` command line no other process has, to look for afterwards."""
    return f"sleep {seconds}.{secrets.randbelow(10**6):06d}"


def processes_with(marker: str) -> list[int]:
    """Live processes (zombies excluded) whose command line contains ``marker``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker.encode() in cmdline.replace(b"\0", b" ") and state != "Z":
            found.append(int(proc.name))
    return found


def gone_within(marker: str, seconds: float) -> bool:
    """True once no process with ``marker`` is left (checked until ``seconds`` pass)."""
    return true_within(lambda: not processes_with(marker), seconds)


def true_within(condition: Callable[[], bool], seconds: float) -> bool:
    """True once ``condition`` holds, checked until ``seconds`` pass (a bound for a failing test, not a timing)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True

"""The ``Sandbox`` protocol the shell tool uses, the launch it prepares, no sandbox, and ``create_sandbox``."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from msgspec import Struct

from engine.errors import HiveError
from engine.paths import project_root
from engine.programs import ProgramLookup, trusted_program, writable_by_commands
from engine.sandbox.options import SandboxMode, SandboxOptions


class SandboxError(HiveError):
    """The sandbox cannot be set up for a command; the command must not run. The message says why."""


def _nothing_to_report() -> tuple[str, ...]:
    return ()


class Launch(Struct, frozen=True, kw_only=True):
    """How to start one command: the program and arguments, the environment, and the descriptors to pass.

    Start it in a new session (``start_new_session=True``) with no terminal on its standard
    streams, so that nothing inside can reach the user's terminal, and with ``pass_fds``: the
    descriptors the sandbox reads at its start (they are good for one start only). Call ``after()``
    once the command and everything it started have ended, whether or not it could start: it closes
    those descriptors, undoes what the sandbox forbids but cannot block, and returns a line for the
    result about each thing it undid.
    """

    argv: tuple[str, ...]
    env: Mapping[str, str]
    after: Callable[[], tuple[str, ...]] = _nothing_to_report
    pass_fds: tuple[int, ...] = ()


class Sandbox(Protocol):
    """Confines the shell commands hive runs."""

    @property
    def mode(self) -> SandboxMode:
        """The mode it enforces (``off`` for no sandbox)."""
        ...

    def prepare(self, command: str, cwd: Path, env: Mapping[str, str]) -> Launch:
        """The launch that runs ``command`` with bash in ``cwd``; raises :class:`SandboxError` if it cannot."""
        ...

    def describe(self) -> str:
        """One line for people: what confines the commands and how."""
        ...

    def problem(self) -> str | None:
        """Why commands cannot be confined here (checked once, then remembered), or None when they can."""
        ...


def shell_argv(command: str, unsafe_dirs: Sequence[Path] = ()) -> tuple[str, ...]:
    """bash (or /bin/sh where there is no bash) running ``command``; bash as :func:`shell_lookup` finds it."""
    return (shell_lookup(unsafe_dirs).path or "/bin/sh", "-c", command)


def shell_lookup(unsafe_dirs: Sequence[Path] = ()) -> ProgramLookup:
    """bash by :func:`engine.programs.trusted_program`: never one in ``unsafe_dirs``, the folders commands can write."""
    return _shell(tuple(unsafe_dirs), os.environ.get("PATH", os.defpath))


def commands_can_write(options: SandboxOptions | None, cwd: Path) -> tuple[Path, ...]:
    """The folders sandboxed commands started in ``cwd`` can write: its project, the options' project and roots."""
    if options is None:
        return (project_root(cwd),)
    return writable_by_commands(project_root(cwd), options.project, *options.writable_roots)


@functools.lru_cache(maxsize=32)
def _shell(unsafe_dirs: tuple[Path, ...], search_path: str) -> ProgramLookup:
    return trusted_program("bash", unsafe_dirs=unsafe_dirs, search_path=search_path)


class NoSandbox:
    """Mode ``off``: commands run as hive itself, with its whole environment."""

    mode: SandboxMode = "off"

    def prepare(self, command: str, cwd: Path, env: Mapping[str, str]) -> Launch:
        """The plain shell launch."""
        return Launch(argv=shell_argv(command, commands_can_write(None, cwd)), env=dict(env))

    def describe(self) -> str:
        """Says there is no sandbox."""
        return "no sandbox: commands run with hive's own access and environment"

    def problem(self) -> str | None:
        """Nothing to start, so nothing can fail."""
        return None


class UnavailableSandbox:
    """A sandbox that cannot work here: every command is refused with the reason (fail closed)."""

    def __init__(self, mode: SandboxMode, reason: str) -> None:
        self.mode = mode
        self.reason = reason

    def prepare(self, command: str, cwd: Path, env: Mapping[str, str]) -> Launch:
        """Always raises :class:`SandboxError`."""
        raise SandboxError(f"the sandbox cannot start here: {self.reason}")

    def describe(self) -> str:
        """The reason it cannot work."""
        return f"sandbox unavailable ({self.reason}); commands are not run"

    def problem(self) -> str | None:
        """The reason it cannot work."""
        return self.reason


def create_sandbox(options: SandboxOptions, *, platform: str = sys.platform) -> Sandbox:
    """The sandbox for ``options`` on ``platform``: bubblewrap on Linux, sandbox-exec on macOS.

    Whether it can actually start is checked on the first command (see :mod:`engine.sandbox.probe`).
    """
    if options.mode == "off":
        return NoSandbox()
    if platform.startswith("linux"):
        from engine.sandbox.bubblewrap import BubblewrapSandbox

        return BubblewrapSandbox(options)
    if platform == "darwin":
        from engine.sandbox.seatbelt import SeatbeltSandbox

        return SeatbeltSandbox(options)
    return UnavailableSandbox(options.mode, f"no sandbox is available on {platform}")

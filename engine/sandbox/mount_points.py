"""The empty folders bwrap makes where it guards a missing path, and when they may go again.

A guard (profile kind ``guard``) is a read-only empty folder mounted where ``.ironhive`` or
``.git/hooks`` would be, and bwrap makes that folder in the project to mount on. It is removed again
once no command of any hive in the project is being planned or running, so a command leaves behind
no ``.ironhive`` the person did not make.

"No command" is decided across processes, because another hive that plans while such a folder
stands mounts on it as on the person's own: pulled out from under it, its bwrap fails with "Can't
find source path". Each command holds a shared ``flock`` on the project's lock file (in hive's data
folder, where no sandboxed command can write) from before its profile is planned until it has ended,
and lists the folders it will make in the file beside it. A command that ends and then gets the lock
exclusively (nobody else planning or running) removes each listed folder that is still empty and
empties the list; a hive killed before its end leaves its folders to the next one. Where the lock
cannot be had (a read-only data folder) nothing is removed: an empty folder left behind is better
than a command that cannot start.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.paths import user_data_dir

if TYPE_CHECKING:
    from engine.sandbox.profile import Profile

_FOLDER = "sandbox"
_LIST_LIMIT = 1024 * 1024


class MountPoints:
    """Hands out a :class:`Claim` per command; ``folder`` (default: hive's data folder) holds the lock files."""

    def __init__(self, folder: Path | None = None) -> None:
        self._folder = folder

    def claim(self, project: Path) -> Claim:
        """Hold the mount points of ``project`` from now (before the profile is planned) until the claim is released."""
        folder = self._folder or user_data_dir() / _FOLDER
        key = hashlib.sha256(os.fsencode(os.path.realpath(project))).hexdigest()[:16]
        return Claim.take(folder / f"mount-points-{key}.lock", folder / f"mount-points-{key}.made")


class Claim:
    """One command's share of its project's mount points (see the module's docstring)."""

    def __init__(self, made: Path, descriptor: int | None) -> None:
        self._made = made
        self._descriptor = descriptor

    @classmethod
    def take(cls, lock: Path, made: Path) -> Claim:
        """The shared lock on ``lock``, waiting only for someone removing folders; a claim of nothing when it cannot be had."""
        try:
            lock.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            descriptor = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError:
            return cls(made, None)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_SH)
        except OSError:
            os.close(descriptor)
            return cls(made, None)
        return cls(made, descriptor)

    def record(self, profile: Profile) -> None:
        """List the guards of ``profile`` that bwrap will have to make (missing now) for removal later."""
        missing = [m.path for m in profile.mounts if m.kind == "guard" and not os.path.lexists(m.path)]
        if not missing or self._descriptor is None:
            return
        with contextlib.suppress(OSError), open(self._made, "ab") as listed:  # unlisted: left behind, never pulled
            listed.write(b"".join(os.fsencode(path) + b"\0" for path in missing))

    def around(self, finish: Callable[[], tuple[str, ...]]) -> Callable[[], tuple[str, ...]]:
        """``finish``, then this claim released."""

        def after() -> tuple[str, ...]:
            try:
                return finish()
            finally:
                self.release()

        return after

    def release(self) -> None:
        """Give the claim up; the last one out removes the listed folders (once only)."""
        descriptor, self._descriptor = self._descriptor, None
        if descriptor is None:
            return
        try:
            # Converting a shared lock may drop it before failing: then another claim's release succeeds.
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(descriptor)  # another command is planning or running: the last one out removes them
            return
        try:
            _remove_listed(self._made)
        finally:
            os.close(descriptor)


def _remove_listed(made: Path) -> None:
    """Remove each folder listed in ``made`` while it is empty, then empty the list."""
    from engine.safe_read import read_head

    try:
        listed = read_head(made, limit=_LIST_LIMIT).data  # past it (never in practice): those folders stay
    except OSError:  # UnsafeFile too
        return
    for path in dict.fromkeys(listed.split(b"\0")):
        if path:
            with contextlib.suppress(OSError):
                os.rmdir(path)  # only an empty folder: anything else is left as it is
    with contextlib.suppress(OSError):
        os.truncate(made, 0)

"""Reading and changing files under a folder without ever following a symbolic link.

Each step from the folder down is opened as a descriptor with ``O_NOFOLLOW``, and every change is
made relative to the descriptor of its own folder: a link a command put in place of a folder or a
file is refused or removed as a link, never written through. hive runs these outside the sandbox,
with all of its own access, so a path is never passed whole to the system.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import stat
from collections.abc import Iterator, Sequence

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FOLDER_MODE = 0o755


@contextlib.contextmanager
def opened_folder(
    root: str, parts: Sequence[str], *, create: bool = False, unlinked: list[str] | None = None
) -> Iterator[int]:
    """A descriptor of ``root/parts...``, each step opened without following a link.

    Raises :class:`OSError` when a step is missing or is not a folder (a link in its place gives
    ``ELOOP`` or ``ENOTDIR``). With ``create``, a missing step is made, and a link in the way is
    removed (as a link: what it points to is untouched) and made a folder; its path under ``root``
    goes to ``unlinked``.
    """
    fd = os.open(root, _DIR_FLAGS)
    try:
        for depth, name in enumerate(parts):
            following = _step(fd, name, create=create)
            if following is None:
                os.unlink(name, dir_fd=fd)
                if unlinked is not None:
                    unlinked.append("/".join(parts[: depth + 1]))
                following = _step(fd, name, create=create)
                if following is None:
                    raise OSError(errno.ELOOP, "a link came back in the way", name)
            os.close(fd)
            fd = following
        yield fd
    finally:
        os.close(fd)


def _step(fd: int, name: str, *, create: bool) -> int | None:
    """A descriptor of the folder ``name`` in ``fd``; None for a link in the way that ``create`` may remove."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=fd)
    except FileNotFoundError:
        if not create:
            raise
        os.mkdir(name, _NEW_FOLDER_MODE, dir_fd=fd)
        return os.open(name, _DIR_FLAGS, dir_fd=fd)
    except OSError:
        st = lstat_at(fd, name)
        if create and st is not None and stat.S_ISLNK(st.st_mode):
            return None
        raise


def lstat_at(fd: int, name: str) -> os.stat_result | None:
    """The entry ``name`` of the folder ``fd`` itself (a link is not followed), or None when it is missing."""
    try:
        return os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def read_at(fd: int, name: str, limit: int) -> bytes | None:
    """The bytes of the regular file ``name`` in ``fd``, or None when it is larger than ``limit`` or not a file."""
    try:
        file_fd = os.open(name, _READ_FLAGS, dir_fd=fd)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(file_fd).st_mode):
            return None
        chunks, size = [], 0
        while chunk := os.read(file_fd, min(1 << 20, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                return None
        return b"".join(chunks)
    finally:
        os.close(file_fd)


def folder_at(fd: int, name: str) -> int:
    """A descriptor of the folder ``name`` in ``fd``, refusing a link; the caller closes it."""
    return os.open(name, _DIR_FLAGS, dir_fd=fd)


def remove_at(fd: int, name: str) -> None:
    """Remove ``name`` from the folder ``fd``: a folder with all it holds, anything else (a link too) as itself."""
    st = lstat_at(fd, name)
    if st is None:
        return
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(name, dir_fd=fd)  # descriptor-based on Linux: it never follows a link inside
    else:
        os.unlink(name, dir_fd=fd)


def write_at(fd: int, name: str, content: bytes, mode: int, mtime_ns: int) -> None:
    """Put a new file ``name`` with ``content`` and ``mode`` in ``fd``, replacing whatever is there.

    The file is written under a fresh name, then renamed over the old entry: a link or a hard link in
    its place is replaced, never written through.
    """
    temporary = f".{name[:64]}.hive-restore-{secrets.token_hex(6)}"
    file_fd = os.open(temporary, _NEW_FILE_FLAGS, 0o600, dir_fd=fd)
    try:
        try:
            view = memoryview(content)
            while view:
                view = view[os.write(file_fd, view) :]
            os.fchmod(file_fd, mode)
            os.utime(file_fd, ns=(mtime_ns, mtime_ns))
        finally:
            os.close(file_fd)
        current = lstat_at(fd, name)
        if current is not None and stat.S_ISDIR(current.st_mode):
            shutil.rmtree(name, dir_fd=fd)
        os.rename(temporary, name, src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=fd)
        raise


def make_folder_at(fd: int, name: str, mode: int) -> None:
    """Make the folder ``name`` in ``fd`` with ``mode`` (replacing anything else there; a folder keeps its contents)."""
    current = lstat_at(fd, name)
    if current is not None and not stat.S_ISDIR(current.st_mode):
        os.unlink(name, dir_fd=fd)
        current = None
    if current is None:
        os.mkdir(name, 0o700, dir_fd=fd)
    set_mode_at(fd, name, mode)


def make_link_at(fd: int, name: str, target: str) -> None:
    """Make the symbolic link ``name`` -> ``target`` in ``fd``, replacing anything there."""
    remove_at(fd, name)
    os.symlink(target, name, dir_fd=fd)


def set_mode_at(fd: int, name: str, mode: int) -> None:
    """Set the permission bits of the file or folder ``name`` in ``fd`` (never of what a link points to)."""
    try:
        target = os.open(name, _READ_FLAGS, dir_fd=fd)
    except PermissionError:
        # hive cannot read it (mode 000 and hive not root): it was just seen not to be a link, and the
        # command that made it has ended, so changing it by name changes that same entry.
        current = lstat_at(fd, name)
        if current is not None and not stat.S_ISLNK(current.st_mode):
            os.chmod(name, mode, dir_fd=fd)
        return
    try:
        os.fchmod(target, mode)
    finally:
        os.close(target)

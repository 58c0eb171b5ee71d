"""Paths walked one folder at a time from ``/``, never through a symbolic link.

Undo restores and removes files by the paths a checkpoint recorded. By the time of the undo a folder
on such a path may have become a link (a command can swap ``src/d`` for a link to a folder outside
the project), and following it would restore or delete files wherever it points. So every folder on
the way is opened with ``O_NOFOLLOW`` from the one above it, and the last component is acted on
relative to its folder's descriptor: what changes is always the entry itself, never a link's target.
A link on the way raises :class:`LinkOnPath`, naming it.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import BinaryIO

_FOLDER_FLAGS = os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_PATH", os.O_RDONLY)
"""``O_PATH`` (Linux) needs only search permission on a folder, as walking a path normally does."""
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class LinkOnPath(Exception):
    """A folder on a path is a symbolic link (or the path is not a plain absolute one): hive will not go through it."""

    def __init__(self, path: str, link: str, why: str = "is a symbolic link") -> None:
        super().__init__(f"{link} {why}; undo never follows a link")
        self.path = path
        self.link = link
        self.why = why


def components(path: str) -> list[str]:
    """The names along an absolute path; raises :class:`LinkOnPath` for ``.``, ``..`` or a relative path."""
    if not os.path.isabs(path):
        raise LinkOnPath(path, path, "is not an absolute path")
    names = [name for name in path.split("/") if name]
    if any(name in (".", "..") for name in names) or not names:
        raise LinkOnPath(path, path, "is not a plain path")
    return names


@contextmanager
def folder_of(path: str, *, create: bool = False) -> Iterator[tuple[int, str]]:
    """The open folder holding ``path``'s last component, and that component's name.

    ``create`` makes the missing folders on the way. Raises :class:`LinkOnPath` when a folder on the
    way is a link, ``FileNotFoundError``/``NotADirectoryError`` when one is missing or not a folder.
    """
    names = components(path)
    fd = os.open("/", _FOLDER_FLAGS)
    try:
        walked = ""
        for name in names[:-1]:
            walked += "/" + name
            parent, fd = fd, -1  # _enter closes the parent, whatever happens
            fd = _enter(parent, name, path, walked, create)
        yield fd, names[-1]
    finally:
        if fd >= 0:
            os.close(fd)


def _enter(parent: int, name: str, path: str, walked: str, create: bool) -> int:
    """The folder ``name`` inside ``parent``, opened without following a link; ``parent`` is closed."""
    try:
        try:
            return os.open(name, _FOLDER_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            if not create:
                raise
            try:
                os.mkdir(name, dir_fd=parent)
            except FileExistsError:
                pass  # made meanwhile: opened below like any folder, links refused
            return _enter_existing(parent, name, path, walked)
        except NotADirectoryError:
            _refuse_link(parent, name, path, walked)
            raise
    finally:
        os.close(parent)


def _enter_existing(parent: int, name: str, path: str, walked: str) -> int:
    try:
        return os.open(name, _FOLDER_FLAGS, dir_fd=parent)
    except NotADirectoryError:
        _refuse_link(parent, name, path, walked)
        raise


def _refuse_link(parent: int, name: str, path: str, walked: str) -> None:
    if stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode):
        raise LinkOnPath(path, walked)


def lstat(path: str) -> os.stat_result | None:
    """What is at ``path`` itself (a link is not followed), or None when nothing is; raises :class:`LinkOnPath`."""
    try:
        with folder_of(path) as (folder, name):
            return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None


def link_on_path(path: str) -> LinkOnPath | None:
    """Why ``path`` cannot be walked (the first folder on the way that is a link), else None."""
    try:
        lstat(path)
    except LinkOnPath as refused:
        return refused
    return None


def open_file(path: str) -> BinaryIO:
    """``path`` opened for reading; raises ``OSError`` when it is a link and :class:`LinkOnPath` for one on the way."""
    with folder_of(path) as (folder, name):
        fd = os.open(name, _READ_FLAGS, dir_fd=folder)
    return os.fdopen(fd, "rb")


def read_link(path: str) -> str:
    """Where the link at ``path`` points."""
    with folder_of(path) as (folder, name):
        return os.readlink(name, dir_fd=folder)


def make_folder(path: str) -> None:
    """Make ``path`` a folder (and the folders above it), replacing a file or link that is there."""
    with folder_of(path, create=True) as (folder, name):
        try:
            st = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            os.mkdir(name, dir_fd=folder)
            return
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(name, dir_fd=folder)
            os.mkdir(name, dir_fd=folder)


def put_file(path: str, data: bytes, mode: int) -> None:
    """Make ``path`` a file holding ``data``: written under a temporary name in its folder, then renamed over it."""
    with folder_of(path, create=True) as (folder, name):
        partial = _partial_name(name)
        fd = os.open(partial, _NEW_FILE_FLAGS, 0o600, dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                os.fchmod(out.fileno(), mode)
            _replace(folder, partial, name)
        except BaseException:
            with suppress(OSError):
                os.unlink(partial, dir_fd=folder)
            raise


def put_link(path: str, target: str) -> None:
    """Make ``path`` a symbolic link to ``target`` (made under a temporary name, then renamed over it)."""
    with folder_of(path, create=True) as (folder, name):
        partial = _partial_name(name)
        os.symlink(target, partial, dir_fd=folder)
        _replace(folder, partial, name)


def remove(path: str) -> bool:
    """Remove the file or link at ``path``, or the folder once it is empty; False when nothing was removed."""
    try:
        with folder_of(path) as (folder, name):
            st = os.stat(name, dir_fd=folder, follow_symlinks=False)
            if not stat.S_ISDIR(st.st_mode):
                os.unlink(name, dir_fd=folder)
                return True
            try:
                os.rmdir(name, dir_fd=folder)
            except OSError:
                return False  # it holds files hive never saw
            return True
    except (FileNotFoundError, NotADirectoryError):
        return False


def set_folder_mode(path: str, mode: int) -> None:
    """Give the folder at ``path`` the permission bits ``mode`` (a link there is left alone)."""
    with folder_of(path) as (folder, name):
        st = os.stat(name, dir_fd=folder, follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            # chmod without following is not offered on Linux; the entry was just seen to be a folder.
            os.chmod(name, mode, dir_fd=folder)


def _replace(folder: int, partial: str, name: str) -> None:
    try:
        st = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        shutil.rmtree(name, dir_fd=folder)
    os.replace(partial, name, src_dir_fd=folder, dst_dir_fd=folder)


def _partial_name(name: str) -> str:
    return f".{name}.hive-undo-{secrets.token_hex(4)}"


def remove_partials(path: str) -> None:
    """Remove what an undo killed while putting ``path`` back left beside it (its temporary ``.NAME.hive-undo-*``)."""
    try:
        with folder_of(path) as (folder, name):
            listing = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=folder)
            try:
                names = os.listdir(listing)
            finally:
                os.close(listing)
            for found in names:
                if found.startswith(f".{name}.hive-undo-"):
                    with suppress(OSError):
                        os.unlink(found, dir_fd=folder)
    except (OSError, LinkOnPath):
        return

"""The project's scratch folder ``.hive``: used only while it is a plain folder of the project, never through a link.

A full command output is written to ``<project>/.hive/outputs/`` so the model can read it with
``read_file``. A repository (or a command) can make ``.hive`` a link to somewhere else, so every
component below the project root is opened without following links (``O_NOFOLLOW`` relative to the
folder above it) and the file is created new (``O_EXCL``, mode 0600). When that is not possible, the
output goes to hive's own data folder instead, and the caller is told why.
"""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path
from typing import BinaryIO

from engine.paths import SCRATCH_DIR_NAME, ensure_scratch_dir, user_data_dir
from engine.private_files import private_dir

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_NOT_PLAIN = frozenset({errno.ELOOP, errno.ENOTDIR, errno.EMLINK})


class ScratchFile:
    """A file opened for writing in a scratch folder, where it is, and why it is not where asked (or "")."""

    def __init__(self, handle: BinaryIO, path: Path, moved: str = "") -> None:
        self.handle = handle
        self.path = path
        self.moved = moved


def open_scratch_file(folder: Path, name: str) -> ScratchFile:
    """Create ``folder/name`` (mode 0600), walking the components below the project root without following links.

    ``folder`` under a ``.hive`` component is the project's scratch folder: when a component there is a
    link or not a folder, the file is created in hive's data folder instead (``moved`` says why).
    Other folders (tests, hosts that pass their own) are made as :func:`engine.paths.ensure_scratch_dir` does.
    """
    parts = folder.parts
    if SCRATCH_DIR_NAME not in parts:
        ensure_scratch_dir(folder)
        return ScratchFile(_create(folder, name), folder / name)
    anchor = Path(*parts[: parts.index(SCRATCH_DIR_NAME)])
    try:
        return ScratchFile(_create_beneath(anchor, parts[parts.index(SCRATCH_DIR_NAME) :], name), folder / name)
    except OSError as exc:
        if exc.errno not in _NOT_PLAIN:
            raise
    elsewhere = private_dir(data_scratch_dir(anchor)) / folder.name
    ensure_scratch_dir(elsewhere)
    why = f"{anchor / SCRATCH_DIR_NAME} is not a plain folder of the project (a link?), so hive kept it in its data folder"
    return ScratchFile(_create(elsewhere, name), elsewhere / name, why)


def data_scratch_dir(root: Path) -> Path:
    """hive's own stand-in for a project's scratch folder, in the user data folder."""
    tag = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    return user_data_dir() / "scratch" / f"{root.name or 'root'}-{tag}"


def _create(folder: Path, name: str) -> BinaryIO:
    return os.fdopen(os.open(folder / name, _NEW_FILE, 0o600), "wb")


def _create_beneath(anchor: Path, components: tuple[str, ...], name: str) -> BinaryIO:
    if os.path.realpath(anchor) != str(anchor):
        raise OSError(errno.ELOOP, "the project root is not a real path", str(anchor))
    descriptor = os.open(anchor, _DIRECTORY)
    try:
        for component in components:
            child = _enter(descriptor, component)
            os.close(descriptor)
            descriptor = child
        _keep_out_of_git(descriptor)
        return os.fdopen(os.open(name, _NEW_FILE, 0o600, dir_fd=descriptor), "wb")
    finally:
        os.close(descriptor)


def _enter(parent: int, component: str) -> int:
    """The folder ``component`` of ``parent`` (made if missing), opened only if it is a folder and not a link."""
    try:
        os.mkdir(component, 0o700, dir_fd=parent)
    except FileExistsError:
        pass
    return os.open(component, _DIRECTORY | os.O_NOFOLLOW, dir_fd=parent)


def _keep_out_of_git(folder: int) -> None:
    try:
        descriptor = os.open(".gitignore", _NEW_FILE, 0o600, dir_fd=folder)
    except FileExistsError:
        return
    with os.fdopen(descriptor, "w", encoding="utf-8") as ignore:
        ignore.write("*\n")

"""Which paths under the scanned roots changed since the last look, told by the kernel (Linux inotify).

A session's first snapshot walks the tree once and puts an inotify watch on every folder it scans
(before listing it, so nothing made meanwhile is missed); from then on the kernel queues an event for
every entry created, removed, renamed, written or given a new mode, in any process, inside the sandbox
or not (a bind mount is the same folder). A later scan reads the queue and looks only at the paths
named there: its cost follows the change, not the tree. The kernel queues an event within the system
call that made the change, so once a command's processes have ended every change they made is in the
queue when it is read.

When the queue overflowed, a watch could not be added (the ``max_user_watches`` limit), or this is not
Linux, :meth:`TreeWatch.changed` answers None and the caller walks the tree as before. Not seen by
inotify, and so not by this: a write through a memory map after the file's last close, and changes
made on another machine to a network file system.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import struct
import sys
import weakref
from collections.abc import Iterable

_IN_MODIFY = 0x2
_IN_ATTRIB = 0x4
_IN_CLOSE_WRITE = 0x8
_IN_MOVED_FROM = 0x40
_IN_MOVED_TO = 0x80
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_DELETE_SELF = 0x400
_IN_MOVE_SELF = 0x800
_IN_Q_OVERFLOW = 0x4000
_IN_IGNORED = 0x8000
_IN_ONLYDIR = 0x1000000
_IN_DONT_FOLLOW = 0x2000000
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = os.O_CLOEXEC
_MASK = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
    | _IN_ONLYDIR
    | _IN_DONT_FOLLOW
)
_EVENT = struct.Struct("iIII")
_READ_BYTES = 1 << 16


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        return libc
    except (OSError, AttributeError):
        return None


class TreeWatch:
    """inotify watches on the folders of a tree, and the paths they reported since the last look."""

    def __init__(self, libc: ctypes.CDLL, descriptor: int) -> None:
        self._libc = libc
        self._descriptor = descriptor
        # An instance is a scarce per-user resource (fs.inotify.max_user_instances, 128 by default): a watch
        # dropped without close() (an index nobody closed) gives its instance back when it is collected.
        self._release = weakref.finalize(self, _close_quietly, descriptor)
        self._folders: dict[int, str] = {}
        self._handles: dict[str, int] = {}
        self.broken = False
        """A watch could not be added, or events were lost: the watch can no longer tell what changed."""

    @classmethod
    def start(cls) -> TreeWatch | None:
        """A new watch with no folder yet (None where inotify is not available)."""
        libc = _libc()
        if libc is None:
            return None
        descriptor = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        return None if descriptor < 0 else cls(libc, descriptor)

    def add(self, folder: str) -> None:
        """Watch ``folder`` (call it before listing the folder, so no entry made meanwhile is missed)."""
        handle = self._libc.inotify_add_watch(self._descriptor, os.fsencode(folder), _MASK)
        if handle < 0:
            if ctypes.get_errno() not in (2, 13, 20):  # gone, unreadable (not scanned either), or not a folder now
                self.broken = True
            return
        previous = self._folders.get(handle)
        if previous is not None and self._handles.get(previous) == handle:
            del self._handles[previous]  # the same folder, moved: known by its new name now
        self._folders[handle] = folder
        self._handles[folder] = handle

    def watches(self, folder: str) -> bool:
        """Whether a live watch reports the folder now at ``folder`` by that name (as far as events have told)."""
        return folder in self._handles

    def changed(self) -> set[str] | None:
        """The paths events named since the last call (a folder's own path when it went), or None when lost."""
        paths: set[str] = set()
        while not self.broken:
            try:
                data = os.read(self._descriptor, _READ_BYTES)
            except BlockingIOError:
                break
            except OSError:
                self.broken = True
                break
            self._parse(data, paths)
        return None if self.broken else paths

    def _parse(self, data: bytes, paths: set[str]) -> None:
        at = 0
        while at + _EVENT.size <= len(data):
            handle, mask, _, length = _EVENT.unpack_from(data, at)
            name = data[at + _EVENT.size : at + _EVENT.size + length].rstrip(b"\0")
            at += _EVENT.size + length
            if mask & _IN_Q_OVERFLOW:
                self.broken = True
                return
            folder = self._folders.get(handle)
            if folder is None:
                continue
            if mask & _IN_IGNORED:
                del self._folders[handle]
                if self._handles.get(folder) == handle:
                    del self._handles[folder]
            paths.add(os.path.join(folder, os.fsdecode(name)) if name else folder)

    def forget(self, folders: Iterable[str]) -> None:
        """Stop tracking ``folders`` by name (they went; the kernel drops their watches itself)."""
        for folder in folders:
            handle = self._handles.pop(folder, None)
            if handle is not None and self._folders.get(handle) == folder:
                del self._folders[handle]

    def close(self) -> None:
        """Release the watches (once; later calls do nothing)."""
        self._release()
        self.broken = True


def _close_quietly(descriptor: int) -> None:
    with contextlib.suppress(OSError):
        os.close(descriptor)

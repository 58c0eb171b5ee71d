"""The repository's own copies of clean tracked files: a snapshot names their git blob instead of copying them.

In a git repository most files a command may touch are exactly the blob git's index holds for them.
The index keeps, for each entry, the ``lstat`` figures the file had when git last saw its bytes (its
stat cache); a file whose size, modification time and inode still match, and which was not modified in
the same clock tick the index was written ("racily clean", git's own rule), has the entry's bytes. Its
before-state is then the blob id, not a copy: :meth:`GitBlobs.clean_blob`.

When a command changes such a file, the blob is copied out of the repository into the checkpoint store
at once (:meth:`GitBlobs.read_blobs`, checked against its id and the file's size), so a saved checkpoint
never depends on the repository: a later ``git gc``, a reset or a removed repository cannot break an
undo. A blob gone by then (the command removed it) leaves that path unrecorded, and undo refuses it.

git is run only to read: ``ls-files --stage --debug`` (the index with its stat cache) and ``cat-file
--batch`` (raw blobs, never through a filter or textconv). Neither runs a program a repository could
name; to be sure, the system and global configuration are not read (a repository-wide setting of the
user's could otherwise name one), ``core.fsmonitor`` is off, hooks point at ``/dev/null``, optional
locks are off (git writes nothing into ``.git``), and every ``GIT_*`` variable of hive's own
environment is dropped.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import subprocess
from pathlib import Path

from msgspec import Struct

from engine.checkpoints import nofollow
from engine.checkpoints.states import lstat_or_none
from engine.checkpoints.store import CheckpointStore, FileState
from engine.git_environment import with_neutral_git
from engine.git_repository import Repository, find_repository
from engine.programs import trusted_program, writable_by_commands

_TIMEOUT_S = 60
_REGULAR_MODES = frozenset({b"100644", b"100755"})
_LOW32 = 0xFFFFFFFF
_HARDENING = (
    "--no-optional-locks",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.untrackedCache=false",
)


class IndexEntry(Struct, frozen=True):
    """One stage-0 regular file of the index: its blob and the stat figures git cached for it."""

    blob: str
    size: int
    mtime: tuple[int, int]
    ino: int


class GitBlobs:
    """The index of one repository, read once per change of the index file, and its blobs on demand."""

    def __init__(self, repository: Repository, git: str) -> None:
        self.repository = repository
        self.git = git
        self._index_key: tuple[int, int, int] | None = None
        self._index_mtime: tuple[int, int] = (0, 0)
        self._entries: dict[str, IndexEntry] = {}

    @classmethod
    def for_root(cls, root: str) -> GitBlobs | None:
        """The repository whose work tree is ``root`` (a real path), when there is one and a git to read it."""
        repository = find_repository(Path(root))
        if repository is None or os.path.realpath(repository.work_tree) != root:
            return None
        found = trusted_program("git", unsafe_dirs=writable_by_commands(Path(root))).path
        return None if found is None else cls(repository, found)

    def clean_blob(self, path: str, size: int, mtime_ns: int, ino: int) -> str | None:
        """The id of the blob holding the bytes of the regular file ``path`` (its ``lstat`` figures given), or None.

        None unless the index holds it with the same size, modification time and inode, modified
        before the index was written.
        """
        entry = self._entries.get(path)
        if entry is None or entry.size != size & _LOW32 or entry.ino != ino & _LOW32:
            return None
        mtime = (mtime_ns // 1_000_000_000 & _LOW32, mtime_ns % 1_000_000_000)
        if entry.mtime != mtime or mtime >= self._index_mtime:
            return None
        return entry.blob

    def refresh(self) -> None:
        """Read the index again when its file changed since it was last read (nothing is trusted when it cannot be)."""
        index = self.repository.git_dir / "index"
        try:
            st = os.stat(index)
        except OSError:
            self._index_key, self._entries = None, {}
            return
        key = (st.st_mtime_ns, st.st_size, st.st_ino)
        if key == self._index_key:
            return
        output = self._run(["ls-files", "--stage", "--debug", "-z"])
        self._entries = {} if output is None else _parse_index(output, str(self.repository.work_tree))
        self._index_key = key if output is not None else None
        self._index_mtime = (st.st_mtime_ns // 1_000_000_000 & _LOW32, st.st_mtime_ns % 1_000_000_000)

    def read_blobs(self, blobs: set[str]) -> dict[str, bytes]:
        """The bytes of each blob the repository still has, checked against its id (a missing one is left out)."""
        if not blobs:
            return {}
        wanted = sorted(blobs)
        output = self._run(["cat-file", "--batch"], stdin="".join(f"{blob}\n" for blob in wanted).encode())
        return {} if output is None else _parse_batch(output, set(wanted))

    def _run(self, arguments: list[str], stdin: bytes = b"") -> bytes | None:
        command = [self.git, *_HARDENING, f"--git-dir={self.repository.git_dir}"]
        command += [f"--work-tree={self.repository.work_tree}", *arguments]
        try:
            done = subprocess.run(
                command,
                input=stdin,
                capture_output=True,
                cwd=self.repository.work_tree,
                env=_git_environment(),
                timeout=_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None


def copy_out(
    states: dict[str, FileState | None], sizes: dict[str, int], store: CheckpointStore, repos: list[GitBlobs]
) -> dict[str, FileState | None]:
    """``states`` with each git blob reference replaced by a copy kept in ``store`` (``sizes``: each file's size then).

    A blob the repository no longer has, or whose size is not the file's (a git filter or a line-ending
    conversion made the file differ from its blob), leaves the path unrecorded: undo refuses it, named.
    """
    wanted = {state.git for state in states.values() if state is not None and state.git}
    if not wanted:
        return states
    found: dict[str, bytes] = {}
    for repo in repos:
        found |= repo.read_blobs(wanted - set(found))
    out = dict(states)
    for path, state in states.items():
        if state is None or not state.git:
            continue
        data = found.get(state.git)
        if data is None:
            out[path] = FileState(
                kind="unrecorded", reason=f"its git blob {state.git[:12]} is gone from the repository"
            )
        elif len(data) != sizes.get(path, -1):
            out[path] = FileState(
                kind="unrecorded", reason="its git blob is not its bytes (a git filter or eol setting)"
            )
        else:
            out[path] = FileState(kind="file", blob=store.put_bytes(data), mode=state.mode)
    return out


def _git_environment() -> dict[str, str]:
    """hive's environment without its ``GIT_*`` variables, reading no system or global configuration."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    env |= {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    return with_neutral_git(env)


_INDEX_ENTRY = re.compile(
    rb"([0-7]+) ([0-9a-f]+) ([0-3])\t([^\0]*)\0  ctime: [0-9:]+\n  mtime: ([0-9]+):([0-9]+)\n"
    rb"  dev: [0-9]+\tino: ([0-9]+)\n  uid: [0-9]+\tgid: [0-9]+\n  size: ([0-9]+)\tflags: [0-9a-f]+\n"
)
"""One entry of ``ls-files --stage --debug -z``: mode, blob, stage, path, then git's stat figures."""


def _parse_index(output: bytes, work_tree: str) -> dict[str, IndexEntry]:
    """The stage-0 regular files of the index by absolute path (``output``: ``ls-files --stage --debug -z``).

    Read entry after entry from the start (a path may hold anything but NUL): what does not parse ends the
    reading, and the entries after it are not trusted.
    """
    prefix = os.path.join(work_tree, "")
    entries: dict[str, IndexEntry] = {}
    at = 0
    while (match := _INDEX_ENTRY.match(output, at)) is not None:
        at = match.end()
        if match[1] in _REGULAR_MODES and match[3] == b"0":
            entries[prefix + os.fsdecode(match[4])] = IndexEntry(
                blob=match[2].decode("ascii"),
                size=int(match[8]),
                mtime=(int(match[5]), int(match[6])),
                ino=int(match[7]),
            )
    return entries


def _parse_batch(output: bytes, wanted: set[str]) -> dict[str, bytes]:
    """``cat-file --batch``: ``ID blob SIZE\\nBYTES\\n`` per blob found, ``ID missing\\n`` otherwise."""
    found: dict[str, bytes] = {}
    at = 0
    while at < len(output):
        end = output.index(b"\n", at)
        header = output[at:end].decode("ascii", "replace").split(" ")
        at = end + 1
        if len(header) != 3:
            continue
        blob, kind, size = header[0], header[1], int(header[2])
        data = output[at : at + size]
        at += size + 1
        if kind == "blob" and blob in wanted and blob_id(data, len(blob)) == blob:
            found[blob] = data
    return found


def blob_id(data: bytes, length: int = 40) -> str:
    """The git id of a blob of ``data`` (sha1, or sha256 for a repository of 64-digit ids)."""
    digest = hashlib.sha256() if length == 64 else hashlib.sha1()  # git's own object name, not security
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def same_bytes(path: str, state: FileState) -> bool:
    """Whether the file at ``path`` still holds the blob ``state`` names, with its mode."""
    now = lstat_or_none(path)
    if now is None or not stat.S_ISREG(now.st_mode) or stat.S_IMODE(now.st_mode) != state.mode:
        return False
    try:
        with nofollow.open_file(path) as source:
            return blob_id(source.read(), len(state.git)) == state.git
    except (OSError, nofollow.LinkOnPath):
        return False

"""The ripgrep search backend: ``rg`` run as a subprocess with flags that match the Python backend."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.programs import ProgramLookup, TrustedProgram, trusted_program
from engine.tools.ignore import IgnoreRules, refused_ignore_file
from engine.tools.search_backend import MAX_FILE_SIZE, GrepError, GrepMatch, GrepQuery, PythonSearchBackend

# Hidden files are searched, .git never, .ignore/.rgignore and the global git excludes are not read:
# exactly what engine.tools.ignore does. .gitignore only applies inside a git repository (rg's default).
_COMMON_FLAGS = (
    "--no-config",
    "--hidden",
    "--no-ignore-dot",
    "--no-ignore-global",
    "--no-messages",
    "--glob",
    "!.git",
)
_LINE_LIMIT = 64 * 1024 * 1024
_ARGS_PER_CHUNK = 64 * 1024
"""Bytes of file names passed to one rg run when searching an explicit list of files."""


def find_ripgrep(unsafe_dirs: Sequence[Path] = ()) -> str | None:
    """The ``rg`` executable, or None: see :func:`ripgrep_lookup`."""
    return ripgrep_lookup(unsafe_dirs).path


def ripgrep_lookup(unsafe_dirs: Sequence[Path] = ()) -> ProgramLookup:
    """The ``rg`` to run: one on ``PATH`` that :func:`engine.programs.trusted_program` accepts (never one in
    ``unsafe_dirs``, the folders sandboxed commands can write), else the one of hive's own environment (the
    ``ripgrep`` wheel, beside the Python interpreter); with what was passed over."""
    return _ripgrep(tuple(unsafe_dirs), os.environ.get("PATH", os.defpath))


@functools.lru_cache(maxsize=32)
def _ripgrep(unsafe_dirs: tuple[Path, ...], search_path: str) -> ProgramLookup:
    found = trusted_program("rg", unsafe_dirs=unsafe_dirs, search_path=search_path)
    own = Path(sys.executable).parent / ("rg.exe" if os.name == "nt" else "rg")
    if found.program is not None or not (own.is_file() and os.access(own, os.X_OK)):
        return found
    real = Path(os.path.realpath(own))
    skipped = tuple(skip for skip in found.skipped if Path(os.path.realpath(skip.path)) != real)
    return ProgramLookup(name="rg", program=TrustedProgram(own, real), skipped=skipped)


class RipgrepBackend:
    """Lists and searches files with ripgrep."""

    name = "ripgrep"

    def __init__(self, executable: str) -> None:
        """Use the ``rg`` at ``executable``."""
        self.executable = executable

    async def list_files(self, root: Path) -> list[str]:
        """Every searchable file under ``root``, relative to it, in depth-first name order."""
        if not await asyncio.to_thread(_ripgrep_may_walk, root):
            return await PythonSearchBackend().list_files(root)
        args = [*_COMMON_FLAGS, "--files", "--null", "--sort", "path"]
        proc = await self._spawn(args, root)
        try:
            stdout, stderr = await proc.communicate()
        except asyncio.CancelledError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            raise
        if proc.returncode == 2 and not stdout:
            raise GrepError(f"ripgrep failed: {stderr.decode(errors='replace').strip()}")
        return [_strip_dot(os.fsdecode(name)) for name in stdout.split(b"\0") if name]

    async def grep(self, root: Path, query: GrepQuery, files: Sequence[str] | None = None) -> list[GrepMatch]:
        """Matching lines under ``root`` (or only in ``files``), in file order."""
        if files is None and not await asyncio.to_thread(_ripgrep_may_walk, root):
            files = await PythonSearchBackend().list_files(root)
        if files is None:
            return await self._search(root, query, ["--sort", "path"], query.max_matches)
        # rg applies --max-filesize only to files it finds itself, so filter named files here.
        files = await asyncio.to_thread(_small_enough, root, files)
        matches: list[GrepMatch] = []
        for chunk in _chunks(files):
            # One thread keeps rg on the given order; "./" keeps a file named "-" from meaning stdin.
            limit = query.max_matches - len(matches)
            targets = ["--threads", "1", "--", *(f"./{name}" for name in chunk)]
            matches += await self._search(root, query, targets, limit)
            if len(matches) >= query.max_matches:
                break
        return matches

    async def _search(self, root: Path, query: GrepQuery, targets: list[str], limit: int) -> list[GrepMatch]:
        args = [*_COMMON_FLAGS, "--json", "--max-filesize", str(MAX_FILE_SIZE)]
        if query.ignore_case:
            args.append("--ignore-case")
        proc = await self._spawn([*args, "--regexp", query.pattern, *targets], root)
        assert proc.stdout is not None and proc.stderr is not None
        stderr_task = asyncio.create_task(proc.stderr.read())
        reader = _JsonReader(limit)
        finished = False
        try:
            async for line in proc.stdout:
                if reader.feed(line):
                    break
            else:
                finished = True
        except ValueError as exc:  # not JSON, or one line longer than _LINE_LIMIT
            raise GrepError(f"ripgrep output could not be read: {exc}") from exc
        finally:
            if not finished:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
            await proc.wait()
            stderr = await stderr_task
        if proc.returncode == 2 and not reader.ran:
            raise GrepError(_pattern_error(query.pattern, stderr))
        return reader.matches

    async def _spawn(self, args: list[str], root: Path) -> asyncio.subprocess.Process:
        try:
            return await asyncio.create_subprocess_exec(
                self.executable,
                *args,
                cwd=root,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                limit=_LINE_LIMIT,
            )
        except OSError as exc:
            raise GrepError(f"Cannot run ripgrep ({self.executable}): {exc}") from exc


class _JsonReader:
    """Collects matches from ``rg --json`` output, dropping files ripgrep found to be binary."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.matches: list[GrepMatch] = []
        self.ran = False
        """True once rg reported any search activity (so a failure was not a bad pattern)."""
        self.done = False
        self._pending: list[GrepMatch] = []

    def feed(self, line: bytes) -> bool:
        """Take one output line; returns True once enough matches are collected."""
        message: dict[str, Any] = json.loads(line)
        kind, data = message.get("type"), message.get("data", {})
        if kind == "match":
            text = _text(data["lines"]).removesuffix("\n").removesuffix("\r")
            self._pending.append(GrepMatch(_path(data["path"]), data["line_number"], text))
        elif kind == "end":
            if data.get("binary_offset") is None:
                self.matches += self._pending[: self.limit - len(self.matches)]
            self._pending = []
            self.done = len(self.matches) >= self.limit
        if kind in ("begin", "end", "summary"):
            self.ran = True
        return self.done


def _ripgrep_may_walk(root: Path) -> bool:
    """Whether rg may find the files under ``root`` itself: it reads their ignore files with no bound and blocks on
    a FIFO (so hive's reader must read them), and it misreads anchored rules from above ``root``."""
    return refused_ignore_file(root) is None and not IgnoreRules().parent_rules_anchored(root)


def _small_enough(root: Path, files: Sequence[str]) -> list[str]:
    kept = []
    for name in files:
        try:
            if (root / name).stat().st_size <= MAX_FILE_SIZE:
                kept.append(name)
        except OSError:
            continue
    return kept


def _text(field: dict[str, str]) -> str:
    if "text" in field:
        return field["text"]
    raw = base64.b64decode(field["bytes"])
    return raw.decode("utf-8", errors="replace")


def _path(field: dict[str, str]) -> str:
    path = field["text"] if "text" in field else os.fsdecode(base64.b64decode(field["bytes"]))
    return _strip_dot(path)


def _strip_dot(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def _chunks(files: Sequence[str]) -> list[list[str]]:
    chunks: list[list[str]] = [[]]
    size = 0
    for name in files:
        if size > _ARGS_PER_CHUNK:
            chunks.append([])
            size = 0
        chunks[-1].append(name)
        size += len(name) + 1
    return [chunk for chunk in chunks if chunk]


def _pattern_error(pattern: str, stderr: bytes) -> str:
    detail = stderr.decode(errors="replace").strip().removeprefix("rg: ")
    return f"Invalid regular expression {pattern!r}: {detail}" if detail else f"ripgrep failed on {pattern!r}"

"""THE reader of git configuration files for hive, which never runs git to learn what a repository configures.

:func:`parse_git_config` reads the text as git's own parser does (``config.c``): sections ``[core]``,
``[remote "origin"]`` and the old ``[a.b]``, names case-folded, values with quotes, escapes, comments
and continued lines, a key right after a header on the same line, and the first line git would reject
stops the reading (git refuses the whole file then, so nothing after it matters). :func:`read_config_file`
reads a file through :func:`engine.safe_read.read_bounded` (no FIFO, no device, at most
:data:`MAX_CONFIG_BYTES`) and keeps what it parsed until the file changes (its size, times or inode).
Following ``include`` is the caller's business (see :mod:`engine.git_repository`).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from msgspec import Struct

from engine.safe_read import UnsafeFile, read_bounded

MAX_CONFIG_BYTES = 256 * 1024
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_KEY_CHARS = _LETTERS | frozenset("0123456789-")
_SPACE = frozenset(" \t\n\r")
"""What git's own ``isspace`` takes for white space (not ``\\v`` or ``\\f``)."""
_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", "\\": "\\", '"': '"'}
_MAX_CACHED = 512


class ConfigEntry(Struct, frozen=True):
    """One ``name = value`` line: ``[diff "x"] textconv = y`` is section ``diff``, subsection ``x``, name ``textconv``."""

    section: str
    """Case-folded."""
    subsection: str | None
    """As written (``[a "B"]``), case-folded for the old ``[a.B]`` spelling; None without one."""
    name: str
    """Case-folded."""
    value: str | None
    """None for a bare name (a true boolean)."""

    @property
    def key(self) -> str:
        """``section.subsection.name``, as ``git config --list`` prints it."""
        middle = "" if self.subsection is None else f"{self.subsection}."
        return f"{self.section}.{middle}{self.name}"


class ParsedConfig(Struct, frozen=True):
    """The entries of one file, in order, and where git would stop reading it ("" when it reads it all)."""

    entries: tuple[ConfigEntry, ...]
    error: str = ""


class ConfigFile(Struct, frozen=True):
    """A configuration file as hive read it."""

    path: Path
    entries: tuple[ConfigEntry, ...] = ()
    problem: str = ""
    """Why hive could not read all of it (refused, too large, a line git rejects); "" when it could, or it is missing."""
    exists: bool = True


class _Source:
    """The text as git's ``get_next_char`` gives it: CR LF read as LF, the end of the text as a last LF."""

    def __init__(self, text: str) -> None:
        self.text = text.replace("\r\n", "\n")
        self.position = 1 if self.text.startswith("\ufeff") else 0
        self.eof = False

    def next(self) -> str:
        if self.position >= len(self.text):
            self.eof = True
            return "\n"
        char = self.text[self.position]
        self.position += 1
        return char

    @property
    def line(self) -> int:
        """The line of the last character read."""
        return self.text.count("\n", 0, max(self.position - 1, 0)) + 1


def parse_git_config(text: str) -> ParsedConfig:
    """The entries of a git configuration file's ``text`` (see the module docstring)."""
    source = _Source(text)
    entries: list[ConfigEntry] = []
    section: str | None = None
    comment = False
    while True:
        char = source.next()
        if char == "\n":
            if source.eof:
                return ParsedConfig(tuple(entries))
            comment = False
        elif comment or char in _SPACE:
            continue
        elif char in "#;":
            comment = True
        elif char == "[":
            section = _section_name(source)
            if not section:
                break
        elif char in _LETTERS:
            entry = _entry(source, section, char.lower())
            if entry is None:
                break
            if section is not None:
                entries.append(entry)
        else:
            break
    return ParsedConfig(tuple(entries), error=f"git rejects line {source.line}")


def _section_name(source: _Source) -> str | None:
    """After ``[``: ``core``, ``remote.origin`` (``[remote "origin"]``) or ``a.b`` (``[a.B]``); None if git rejects it."""
    name: list[str] = []
    while True:
        char = source.next()
        if source.eof:
            return None
        if char == "]":
            return "".join(name)
        if char in _SPACE:
            return _quoted_subsection(source, "".join(name), char)
        if char not in _KEY_CHARS and char != ".":
            return None
        name.append(char.lower())


def _quoted_subsection(source: _Source, head: str, char: str) -> str | None:
    while char in _SPACE:
        if char == "\n":
            return None
        char = source.next()
    if char != '"':
        return None
    sub: list[str] = []
    while True:
        char = source.next()
        if char == "\n":
            return None
        if char == '"':
            break
        if char == "\\":
            char = source.next()
            if char == "\n":
                return None
        sub.append(char)
    if source.next() != "]":
        return None
    return f"{head}.{''.join(sub)}"


def _entry(source: _Source, section: str | None, first: str) -> ConfigEntry | None:
    name = [first]
    while True:
        char = source.next()
        if source.eof or char not in _KEY_CHARS:
            break
        name.append(char.lower())
    while char in " \t":
        char = source.next()
    value: str | None = None
    if char != "\n":
        if char != "=":
            return None
        value = _value(source)
        if value is None:
            return None
    head, dot, rest = (section or "").partition(".")
    return ConfigEntry(section=head, subsection=rest if dot else None, name="".join(name), value=value)


def _value(source: _Source) -> str | None:
    """The value after ``=`` as git's ``parse_value`` reads it; None for what git rejects."""
    out: list[str] = []
    quoted = comment = False
    spaces = 0
    while True:
        char = source.next()
        if char == "\n":
            return None if quoted else "".join(out)
        if comment:
            continue
        if char in _SPACE and not quoted:
            spaces += 1 if out else 0
            continue
        if not quoted and char in "#;":
            comment = True
            continue
        out.append(" " * spaces)
        spaces = 0
        if char == "\\":
            char = source.next()
            if char == "\n":
                continue
            if char not in _ESCAPES:
                return None
            out.append(_ESCAPES[char])
        elif char == '"':
            quoted = not quoted
        else:
            out.append(char)


_cache: dict[tuple[str, str], tuple[tuple[int, ...], ConfigFile]] = {}
_cache_lock = threading.Lock()


def read_config_file(path: Path, *, within: Path | None = None) -> ConfigFile:
    """The configuration file at ``path``, read safely and bounded, parsed once per version of the file.

    ``within``: a file that resolves outside this folder is refused (its ``problem`` says so).
    A missing file is no problem: git reads nothing from it either.
    """
    try:
        status = os.stat(path)
    except OSError:
        return ConfigFile(path=path, exists=False)
    stamp = (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)
    key = (str(path), "" if within is None else str(within))
    with _cache_lock:
        cached = _cache.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    read = _read(path, within)
    with _cache_lock:
        if len(_cache) >= _MAX_CACHED:
            _cache.clear()
        _cache[key] = (stamp, read)
    return read


def _read(path: Path, within: Path | None) -> ConfigFile:
    try:
        data = read_bounded(path, limit=MAX_CONFIG_BYTES, within=within)
    except UnsafeFile as refused:
        return ConfigFile(path=path, problem=f"{path} {refused}")
    except FileNotFoundError:
        return ConfigFile(path=path, exists=False)
    except OSError as exc:
        return ConfigFile(path=path, problem=f"{path} cannot be read ({exc.strerror or exc})")
    parsed = parse_git_config(data.decode("utf-8", "surrogateescape"))
    problem = f"{path}: {parsed.error}" if parsed.error else ""
    return ConfigFile(path=path, entries=parsed.entries, problem=problem)

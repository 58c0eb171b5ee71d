"""Which files a search sees: ``.gitignore`` rules applied the way git and ripgrep apply them.

Rules take effect inside a git repository only (a directory with ``.git`` at or above it), as in git
and in ripgrep's default mode. For a path, the ``.gitignore`` of its own directory is consulted first,
then each parent's up to the repository root; the first file with a matching rule decides, and within a
file the last matching rule wins (``!pattern`` re-includes). The repository's ``.git/info/exclude``
comes last. A rule matches the path itself, never because one of its parents matched: a walk never
enters an ignored directory, and a search rooted inside one sees its files.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

from msgspec import Struct

from engine.safe_read import read_bounded

MAX_IGNORE_FILE_BYTES = 1024 * 1024
"""An ignore file larger than this is not read (as if it were missing)."""

# pathspec names the group that matches a directory's trailing slash; when it is present we can tell
# "the path itself matched" from "a parent directory matched".
_DIR_MARK = "ps_d"


class _Rule(Struct, frozen=True):
    regex: re.Pattern[str]
    ignore: bool
    """True for an ignore rule, False for a ``!`` rule that re-includes."""
    has_dir_mark: bool
    anchored: bool
    """True when the pattern has a ``/`` other than a trailing one (it matches relative to its directory)."""

    def matches(self, rel: str, is_dir: bool) -> bool:
        subject = rel + "/" if is_dir and self.has_dir_mark else rel
        match = self.regex.match(subject)
        if match is None:
            return False
        if not self.has_dir_mark or match.start(_DIR_MARK) == -1:
            return True
        return match.end(_DIR_MARK) == len(subject)


class _Level(Struct, frozen=True):
    directory: Path
    rules: tuple[_Rule, ...]

    def decide(self, path: Path, is_dir: bool) -> bool | None:
        if not self.rules:
            return None
        rel = path.relative_to(self.directory).as_posix()
        for rule in reversed(self.rules):
            if rule.matches(rel, is_dir):
                return rule.ignore
        return None


_Chain = tuple[tuple[_Level, ...], _Level | None]
"""The ``.gitignore`` levels that apply in a directory (nearest first) and the repository's exclude file."""


class IgnoreRules:
    """Answers "is this path ignored?" for paths anywhere on disk, caching each directory's rules."""

    def __init__(self) -> None:
        self._chains: dict[Path, _Chain] = {}

    def is_ignored(self, path: Path, is_dir: bool) -> bool:
        """Whether ``path`` (absolute, symbolic links resolved) is ignored by git's rules."""
        levels, exclude = self._chain(path.parent)
        for level in levels:
            decision = level.decide(path, is_dir)
            if decision is not None:
                return decision
        return bool(exclude and exclude.decide(path, is_dir))

    def parent_rules_anchored(self, root: Path) -> bool:
        """Whether rules that reach into ``root`` from above it (parent ``.gitignore`` files, and the
        repository's exclude file when ``root`` is not the repository root) include anchored patterns.

        ripgrep 14 applies such patterns wrongly below a subdirectory it searches (BurntSushi/ripgrep
        issues 2770 and 2778), so the ripgrep backend lists files itself in that case.
        """
        levels, exclude = self._chain(root)
        outer = list(levels[1:])
        if exclude is not None and exclude.directory != root:
            outer.append(exclude)
        return any(rule.anchored for level in outer for rule in level.rules)

    def _chain(self, directory: Path) -> _Chain:
        cached = self._chains.get(directory)
        if cached is not None:
            return cached
        own = _Level(directory, _read_rules(directory / ".gitignore"))
        chain: _Chain
        if os.path.lexists(directory / ".git"):
            chain = ((own,), _Level(directory, _read_rules(directory / ".git" / "info" / "exclude")))
        elif directory.parent == directory:
            chain = ((), None)
        else:
            parent_levels, exclude = self._chain(directory.parent)
            chain = ((own, *parent_levels), exclude) if exclude is not None else ((), None)
        self._chains[directory] = chain
        return chain


def walk_files(root: Path, rules: IgnoreRules | None = None) -> Iterator[str]:
    """Regular files under ``root`` that are not ignored, as ``/``-separated paths relative to it.

    The order is depth first with the entries of each directory sorted by name (ripgrep's
    ``--sort path``). ``.git`` is always skipped, symbolic links are not followed or listed, and
    unreadable directories are skipped.
    """
    yield from _walk(root.resolve(), "", rules or IgnoreRules())


def _walk(directory: Path, prefix: str, rules: IgnoreRules) -> Iterator[str]:
    for entry in sorted_entries(directory):
        if entry.name == ".git":
            continue
        path = directory / entry.name
        if entry.is_dir(follow_symlinks=False):
            if not rules.is_ignored(path, True):
                yield from _walk(path, f"{prefix}{entry.name}/", rules)
        elif entry.is_file(follow_symlinks=False) and not rules.is_ignored(path, False):
            yield prefix + entry.name


def sorted_entries(directory: Path) -> list[os.DirEntry[str]]:
    """The entries of ``directory`` sorted by name; empty when it cannot be read."""
    try:
        with os.scandir(directory) as entries:
            return sorted(entries, key=lambda entry: entry.name)
    except OSError:
        return []


def refused_ignore_file(root: Path) -> Path | None:
    """An ignore file a search of ``root`` reads that hive's reader refuses (a FIFO, a device, a huge file); None if none.

    ripgrep opens the ``.gitignore`` of every folder it enters, of the folders above ``root`` up to
    the repository, and the repository's exclude file, and a FIFO among them blocks it for good (a
    huge one fills its memory). Only a search that :func:`walk_files` lists (it reads them through
    :func:`engine.safe_read.read_bounded`) is safe then. The folders looked through are those a search
    enters: ``.git`` and the folders ``.gitignore`` excludes are left out.
    """
    root = root.resolve()
    above = _refused_above(root)
    return above if above is not None else _refused_below(root, IgnoreRules())


def _refused_above(root: Path) -> Path | None:
    for folder in (root, *root.parents):
        if not _safe_ignore_file(folder / ".gitignore"):
            return folder / ".gitignore"
        if os.path.lexists(folder / ".git"):
            exclude = folder / ".git" / "info" / "exclude"
            return None if _safe_ignore_file(exclude) else exclude
    return None


def _refused_below(directory: Path, rules: IgnoreRules) -> Path | None:
    entries = _entries(directory)
    if any(entry.name == ".gitignore" for entry in entries) and not _safe_ignore_file(directory / ".gitignore"):
        return directory / ".gitignore"
    for entry in entries:
        if entry.name == ".git" or not entry.is_dir(follow_symlinks=False):
            continue
        path = directory / entry.name
        if not rules.is_ignored(path, True) and (found := _refused_below(path, rules)) is not None:
            return found
    return None


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as entries:
            return list(entries)
    except OSError:
        return []


def _safe_ignore_file(path: Path) -> bool:
    """Whether ``path`` is missing, or a regular file (through links) of at most :data:`MAX_IGNORE_FILE_BYTES`."""
    try:
        status = os.stat(path)
    except OSError:  # missing, a dangling link, a loop, no permission: ripgrep cannot open it either
        return True
    return stat.S_ISREG(status.st_mode) and status.st_size <= MAX_IGNORE_FILE_BYTES


def _read_rules(path: Path) -> tuple[_Rule, ...]:
    if not os.path.lexists(path):  # most folders have none: spare the reader's checks
        return ()
    try:
        text = read_bounded(path, limit=MAX_IGNORE_FILE_BYTES).decode("utf-8", errors="replace")
    except OSError:  # missing, unreadable, or refused (a FIFO, a device, a link loop, too large)
        return ()
    # imported here, once a file was read: a folder without ignore files never needs pathspec
    from pathspec.patterns.gitwildmatch import GitWildMatchPattern, GitWildMatchPatternError

    rules = []
    for line in text.splitlines():
        line = _adapt(line)
        try:
            pattern = GitWildMatchPattern(line)
        except GitWildMatchPatternError:
            continue
        if pattern.regex is None or pattern.include is None:
            continue
        body = line.strip().removeprefix("!").rstrip("/")
        rules.append(_Rule(pattern.regex, pattern.include, _DIR_MARK in pattern.regex.groupindex, "/" in body))
    return tuple(rules)


def _adapt(line: str) -> str:
    """Rewrite a line where pathspec reads it differently from git and ripgrep."""
    stripped = line.rstrip()
    if stripped.endswith("/**/"):
        # "dir/**/" means the directories inside dir; pathspec would match dir itself too.
        line = stripped[:-1] + "/*/"
    indent = len(line) - len(line.lstrip(" "))
    if indent and line.strip():
        # Leading spaces belong to the pattern (pathspec would strip them): escape them.
        line = "\\ " * indent + line[indent:]
    return line

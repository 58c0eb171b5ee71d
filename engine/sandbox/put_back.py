"""Putting a protected path back as it was before a command: what it made is removed, what it changed or removed is
put back (content, mode, link target). Every step goes through :mod:`engine.sandbox.nofollow`: never through a link.
"""

from __future__ import annotations

import errno
from collections.abc import Callable

from msgspec import Struct

from engine.sandbox.nofollow import make_folder_at, make_link_at, opened_folder, remove_at, set_mode_at, write_at
from engine.sandbox.tree_state import Node, TreeState, read_content

_Action = Callable[[int, str], None]
"""A change made to the entry ``name`` of the folder open as the descriptor."""


class Undone(Struct, frozen=True, kw_only=True):
    """What was put back under one protected path (topmost entries only), and what could not be."""

    created: tuple[str, ...] = ()
    """The files, links and empty folders made (those inside a new folder, rather than the folder)."""
    changed: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()
    """``path: why`` for each entry that could not be put back."""
    unlinked: tuple[str, ...] = ()
    """Links the command put where a folder was, removed (as links) to put what was in that folder back."""

    @property
    def anything(self) -> bool:
        """Whether the command changed anything there."""
        return bool(self.created or self.changed or self.deleted or self.failures or self.unlinked)


def put_back(root: str, before: TreeState, after: TreeState, *, since_ns: int) -> Undone:
    """Make the entries under ``root`` match ``before`` again, given what they are now (``after``).

    An entry that is new but older than ``since_ns`` (its change time) is kept when ``before`` is
    incomplete: it was there before the command, unseen.
    """
    fresh = _fresh(before, after, since_ns)
    undo = _Undo(root, after)
    # Folders first, and what is under a folder right after it: what follows a removed folder is known gone.
    for rel in sorted(before.nodes.keys() | after.nodes.keys(), key=lambda rel: rel.split("/")):
        undo.entry(rel, before.nodes.get(rel), after.nodes.get(rel), rel in fresh)
    return Undone(
        created=tuple(undo.created),
        changed=tuple(undo.changed),
        deleted=tuple(undo.deleted),
        failures=tuple(undo.failures),
        unlinked=tuple(undo.unlinked),
    )


def _fresh(before: TreeState, after: TreeState, since_ns: int) -> set[str]:
    """The entries the command made: new ones, or, when ``before`` is incomplete, new ones no older entry is under."""
    new = after.nodes.keys() - before.nodes.keys()
    if before.complete:
        return set(new)
    old = {rel for rel, node in after.nodes.items() if node.stamp[3] < since_ns}
    with_folders = {"/".join(rel.split("/")[:depth]) for rel in old for depth in range(1, rel.count("/") + 2)}
    return new - with_folders


class _Undo:
    def __init__(self, root: str, after: TreeState) -> None:
        self.root = root
        self.walked = list(after.nodes)
        """The entries now, in the order read: each folder is followed by everything under it."""
        self.position = {rel: index for index, rel in enumerate(self.walked)}
        self.created: list[str] = []
        self.changed: list[str] = []
        self.deleted: list[str] = []
        self.failures: list[str] = []
        self.unlinked: list[str] = []
        self._removed = ""
        """The last entry removed whole: the entries after it that lie under it are gone."""
        self._reported = ""
        """The last entry named: the entries after it that lie under it are not named again."""

    def entry(self, rel: str, before: Node | None, after: Node | None, fresh: bool) -> None:
        if _under(rel, self._removed):
            after = None  # gone with the folder it was in
        if before is None:
            if after is not None and fresh:
                self._remove(rel)
            return
        if after is None:
            self._restore(rel, before, self.deleted)
            return
        verdict = self._compare(rel, before, after)
        if verdict == "mode":
            self._report(rel, self.changed)
            self._act(rel, lambda fd, name: set_mode_at(fd, name, before.mode))
        elif verdict == "replace":
            if after.kind == "folder" and before.kind != "folder":
                self._removed = rel
            self._restore(rel, before, self.changed)
        elif verdict == "uncopied":
            self._report(rel, self.changed)
            self.failures.append(f"{rel}: changed, and hive kept no copy of it (files over 1 MiB are not copied)")

    def _compare(self, rel: str, before: Node, after: Node) -> str:
        """How ``after`` differs from ``before``: same, mode, replace, or uncopied (a changed file with no copy)."""
        if before.stamp == after.stamp:
            return "same"
        if before.kind != after.kind:
            return "replace"
        if before.kind == "file":
            if before.content is None:
                return "uncopied"
            if read_content(self.root, rel, len(before.content)) != before.content:
                return "replace"
        if before.kind == "link" and before.target != after.target:
            return "replace"
        return "mode" if before.mode != after.mode and before.kind in ("file", "folder") else "same"

    def _remove(self, rel: str) -> None:
        self._removed = rel
        self._report(rel, self.created, named=self._made_under(rel))
        self._act(rel, remove_at)

    def _made_under(self, rel: str) -> list[str]:
        """What was made at or under ``rel``: its files and links, and folders with nothing in them."""
        start = self.position[rel]
        end = next((i for i in range(start + 1, len(self.walked)) if not _under(self.walked[i], rel)), len(self.walked))
        under = self.walked[start:end]
        parents = {r.rsplit("/", 1)[0] for r in under[1:]}
        return sorted((r for r in under if r not in parents), key=lambda r: r.split("/"))

    def _restore(self, rel: str, node: Node, into: list[str]) -> None:
        self._report(rel, into)
        if node.kind == "folder":
            self._act(rel, lambda fd, name: make_folder_at(fd, name, node.mode), create=True)
        elif node.kind == "file" and node.content is not None:
            content = node.content
            self._act(rel, lambda fd, name: write_at(fd, name, content, node.mode, node.mtime_ns), create=True)
        elif node.kind == "link" and node.target is not None:
            target = node.target
            self._act(rel, lambda fd, name: make_link_at(fd, name, target), create=True)
        else:
            self.failures.append(f"{rel}: hive kept no copy of it, so it cannot be put back")

    def _act(self, rel: str, action: _Action, *, create: bool = False) -> None:
        parts = rel.split("/")
        try:
            with opened_folder(self.root, parts[:-1], create=create, unlinked=self.unlinked) as fd:
                action(fd, parts[-1])
        except OSError as exc:
            self.failures.append(f"{rel}: {_why(exc)}")

    def _report(self, rel: str, into: list[str], *, named: list[str] | None = None) -> None:
        """Name ``rel`` (or what ``named`` says was under it), unless an entry above it was named."""
        if not _under(rel, self._reported):
            into.extend(named or [rel])
            self._reported = rel


def _under(rel: str, folder: str) -> bool:
    return bool(folder) and rel.startswith(folder + "/")


def _why(exc: OSError) -> str:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return "a link or a file now stands where one of its folders was, and hive does not follow links"
    return exc.strerror or str(exc)

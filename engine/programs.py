"""Finding the programs hive runs outside the sandbox, so that nothing a sandboxed command planted is one of them.

A sandboxed command can write the project and the writable roots. A folder there on ``PATH`` (an
activated ``.venv/bin``, ``node_modules/.bin``) is a place to plant a ``bwrap``, an ``rg`` or an
``npx`` that hive would later start with its own access. :func:`trusted_program` walks ``PATH``
like ``shutil.which`` but passes over:

* an entry that is empty or relative (it means some working folder);
* a candidate that lies, or whose folder, real path or any link on the way lies, inside a folder
  sandboxed commands can write (the ``unsafe_dirs`` the caller passes in);
* a candidate any component of which, from ``/`` down, on its ``PATH`` path, its real path and the
  real folder of every link between, is owned by someone other than root or the user running hive
  (only root for ``bwrap``), or can be written by its group or by others (a sticky ``/tmp`` too).

It returns the ``PATH`` path, not the real one: a multi-call binary (rustup, busybox) chooses what to
be by the name it is started as. What it passed over comes back with it, for the caller to say once.
Nothing here runs a program; ruff keeps ``shutil.which`` out of the rest of ``engine/``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from msgspec import Struct

INSIDE_WRITABLE = "inside a folder sandboxed commands can write"
_MAX_LINKS = 40
_GROUP_OR_OTHERS = stat.S_IWGRP | stat.S_IWOTH


class Skipped(Struct, frozen=True):
    """A candidate that was passed over, and why."""

    path: Path
    reason: str

    def describe(self) -> str:
        """E.g. ``/work/p/.venv/bin/rg (inside a folder sandboxed commands can write)``."""
        return f"{self.path} ({self.reason})"


class TrustedProgram(Struct, frozen=True):
    """A program that passed: the path to execute and the file it really is."""

    path: Path
    """What to execute: the path as found on ``PATH`` (or as given), not resolved."""
    real: Path


class ProgramLookup(Struct, frozen=True, kw_only=True):
    """What a lookup found for one program name, and what it passed over on the way."""

    name: str
    program: TrustedProgram | None = None
    skipped: tuple[Skipped, ...] = ()
    caution: str = ""
    """Set when the program is used although it is not where a command cannot reach (a path given explicitly)."""

    @property
    def path(self) -> str | None:
        """The path to execute, or None when nothing fit."""
        return None if self.program is None else str(self.program.path)

    def notice(self) -> str | None:
        """One line for a person about what was passed over (or why the program used deserves a look); else None."""
        if self.caution:
            return f"{self.name}: {self.caution}"
        if not self.skipped:
            return None
        passed = "; ".join(skip.describe() for skip in self.skipped)
        used = f"using {self.program.path}" if self.program else "no other was found"
        return f"{self.name}: skipped {passed}; {used}"


def trusted_program(
    name: str, *, unsafe_dirs: Sequence[Path], search_path: str | None = None, root_only: bool = False
) -> ProgramLookup:
    """The first ``name`` on ``search_path`` (default: hive's ``PATH``) that passes the rules of this module.

    ``unsafe_dirs``: the folders sandboxed commands can write (the project, the writable roots).
    ``root_only``: every component must be root's (for ``bwrap``, which runs with hive's privileges).
    """
    if not name or os.sep in name:
        raise ValueError(f"a program name, not a path: {name!r}")
    unsafe = _both_forms(unsafe_dirs)
    skipped: dict[str, Skipped] = {}
    path = os.environ.get("PATH", os.defpath) if search_path is None else search_path
    for entry in path.split(os.pathsep):
        candidate = os.path.join(entry or os.curdir, name)
        if candidate in skipped or not _is_program(candidate):
            continue
        reason = _entry_problem(entry) or _placement_problem(candidate, unsafe, root_only)
        if reason is None:
            return ProgramLookup(name=name, program=_program(candidate), skipped=tuple(skipped.values()))
        skipped[candidate] = Skipped(Path(os.path.abspath(candidate)), reason)
    return ProgramLookup(name=name, skipped=tuple(skipped.values()))


def given_program(path: Path, *, unsafe_dirs: Sequence[Path], name: str | None = None) -> ProgramLookup:
    """A program named by its path (``name``: as written): a configuration chose that very file, so it is used
    as it is (whether it exists or not), with a caution when a sandboxed command, or someone else, could
    have changed it."""
    found = os.path.abspath(path)
    problem = placement_problem(path, unsafe_dirs=unsafe_dirs) if _is_program(found) else None
    caution = f"runs {found}, which others could have changed ({problem})" if problem else ""
    return ProgramLookup(name=name or str(path), program=_program(found), caution=caution)


def placement_problem(path: Path, *, unsafe_dirs: Sequence[Path], root_only: bool = False) -> str | None:
    """Why a sandboxed command, or someone other than root and the user, could have planted or changed ``path``.

    None when nobody could: see the module's rules.
    """
    return _placement_problem(str(path), _both_forms(unsafe_dirs), root_only)


def writable_by_commands(*folders: Path | None) -> tuple[Path, ...]:
    """``folders`` (the project, the writable roots) without the missing ones, each once."""
    return tuple(dict.fromkeys(folder for folder in folders if folder is not None))


def _placement_problem(path: str, unsafe: Sequence[Path], root_only: bool) -> str | None:
    literal = os.path.abspath(path)
    try:
        # The path as found, the file it is, and the real folder of every link read on the way.
        places = [literal, os.path.realpath(literal), *map(_real_folder, _link_chain(literal))]
        if any(_inside(place, unsafe) for place in places):
            return INSIDE_WRITABLE
        return next(filter(None, (_components_problem(place, root_only) for place in places)), None)
    except OSError as exc:
        return f"cannot be checked ({exc.strerror or exc})"


def _entry_problem(entry: str) -> str | None:
    if not entry or not os.path.isabs(entry):
        return "a relative PATH entry (it means whatever folder hive is in)"
    return None


def _is_program(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _program(path: str) -> TrustedProgram:
    absolute = os.path.abspath(path)
    return TrustedProgram(Path(absolute), Path(os.path.realpath(absolute)))


def _both_forms(folders: Iterable[Path]) -> tuple[Path, ...]:
    forms = (form for folder in folders for form in (Path(os.path.abspath(folder)), Path(os.path.realpath(folder))))
    return tuple(dict.fromkeys(forms))


def _inside(path: str, folders: Sequence[Path]) -> bool:
    return any(path == str(folder) or path.startswith(os.path.join(folder, "")) for folder in folders)


def _link_chain(path: str) -> list[str]:
    """``path`` and every link it leads through to the file, one hop at a time."""
    hops = [path]
    for _ in range(_MAX_LINKS):
        if not os.path.islink(hops[-1]):
            break
        hops.append(os.path.join(os.path.dirname(hops[-1]), os.readlink(hops[-1])))
    return hops


def _real_folder(path: str) -> str:
    return os.path.realpath(os.path.dirname(path))


def _components_problem(path: str, root_only: bool) -> str | None:
    """The first component of ``path``, from ``/`` down, that someone else could change."""
    owners = {0} if root_only else {0, os.geteuid()}
    current = os.sep
    for part in Path(path).parts:
        current = os.path.join(current, part)
        info = os.lstat(current)
        if info.st_uid not in owners:
            return f"{current} belongs to uid {info.st_uid}, not to {'root' if root_only else 'root or you'}"
        # A link's own mode means nothing; where it points is checked as a path of its own.
        if not stat.S_ISLNK(info.st_mode) and info.st_mode & _GROUP_OR_OTHERS:
            return f"{current} can be written by {_writers(info.st_mode)}"
    return None


def _writers(mode: int) -> str:
    others = "others" + (" (even with the sticky bit)" if mode & stat.S_ISVTX else "")
    if mode & stat.S_IWGRP and mode & stat.S_IWOTH:
        return f"its group and {others}"
    return "its group" if mode & stat.S_IWGRP else others

"""(temporary, replaced by the MCP launch-file work) The project files a command line runs."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct


class NamedFile(Struct, frozen=True):
    path: str
    digest: str


def launch_files(argv: Sequence[str], cwd: Path, root: Path) -> tuple[NamedFile, ...]:
    found = []
    for word in argv:
        candidate = (cwd / word).resolve()
        if candidate.is_file() and candidate.is_relative_to(root):
            found.append(NamedFile(candidate.relative_to(root).as_posix(), ""))
    return tuple(found)


def command_line_files(command: str, cwd: Path, root: Path) -> tuple[NamedFile, ...]:
    try:
        words = shlex.split(command)
    except ValueError:
        return ()
    return launch_files(words, cwd, root)

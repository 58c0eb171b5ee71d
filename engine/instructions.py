"""The system prompt: hive's base instructions plus what contributors add (project files, later skills, memory)."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from msgspec import Struct

from engine.paths import repository_root
from engine.safe_read import UnsafeFile, read_head

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")
MAX_FILE_BYTES = 32 * 1024
"""Bytes of each instruction file put into the system prompt at most; hive reads no more than that (and one)."""
MAX_TOTAL_BYTES = 64 * 1024
"""Bytes of all instruction files together (about 16k tokens, in every request): the nearest folder's file
counts first, and what does not fit is cut or left out, and said."""

BASE_INSTRUCTIONS = """You are hive, a coding agent working in the user's terminal, inside their project.

How to work:
- Understand before changing: read the relevant files (read_file, grep_files, glob_files, list_directory) first.
- Make focused changes with edit_file (exact replacement of a unique snippet); use write_file for new files.
- Verify your work: run the tests or the program with execute_command when that is possible.
- For tasks with several steps, keep a short plan with todo_write and update it as you go.
- In plan mode (only read-only tools are offered), investigate, then write the plan with todo_write as small
  steps that can each be checked, and stop: the person approves it, then hive runs the steps one by one.
- Be concise. Report what you changed and what you verified; say plainly what you could not do.
- A refused or failed tool call is information: adapt instead of repeating the same call."""


class InstructionContext(Struct, frozen=True, kw_only=True):
    """What contributors may look at."""

    cwd: Path


@runtime_checkable
class InstructionContributor(Protocol):
    """Adds a section to the system prompt (or nothing)."""

    def contribute(self, context: InstructionContext) -> str | None: ...


class EnvironmentInstructions:
    """Tells the model where it is: working directory, platform and date."""

    def contribute(self, context: InstructionContext) -> str | None:
        repo = repository_root(context.cwd)
        lines = [
            "# Environment",
            f"- Working directory: {context.cwd}",
            f"- Git repository: {'yes, root ' + str(repo) if repo else 'no'}",
            f"- Platform: {platform.system()} {platform.release()}",
            f"- Date: {time.strftime('%Y-%m-%d')}",
        ]
        return "\n".join(lines)


class ProjectInstructions:
    """AGENTS.md (or CLAUDE.md where a folder has no AGENTS.md), from the repository root down to cwd."""

    def contribute(self, context: InstructionContext) -> str | None:
        sections = [
            f"## From {found.path}\n\n{found.text.strip()}"
            for found in within_total(read_instruction_files(context.cwd))
            if found.text.strip()
        ]
        if not sections:
            return None
        return "# Project instructions\n\n" + "\n\n".join(sections)


class InstructionFile(Struct, frozen=True, kw_only=True):
    """One instruction file as hive read it: its text (cut at :data:`MAX_FILE_BYTES`), or why it was refused."""

    path: Path
    text: str = ""
    refused: str = ""
    """Why hive did not read it (``is a FIFO, not a regular file``); empty when it was read."""


def read_instruction_files(cwd: Path) -> list[InstructionFile]:
    """The instruction files of :func:`instruction_files`, each read through :func:`engine.safe_read.read_head`.

    A file is read only when it is a regular file that resolves inside the repository root (or ``cwd``
    outside a repository): an ``AGENTS.md`` that links to ``/proc/self/environ`` or into the home, a
    FIFO or a device is refused, never opened, and a large one is read no further than the cap.
    """
    root = _instruction_root(cwd.resolve())
    return [_read_instruction_file(path, root) for path in instruction_files(cwd)]


def instruction_notices(cwd: Path) -> list[str]:
    """One line for each instruction file hive refused to read or cut to the total, for the person."""
    found = read_instruction_files(cwd)
    refused = [
        f"hive did not read the instruction file {file.path}: it {file.refused}." for file in found if file.refused
    ]
    kept = {file.path: len(file.text.encode()) for file in within_total(found)}
    cut = []
    for file in found:
        size = len(file.text.encode())
        if kept.get(file.path, 0) < size:
            cut.append(
                f"hive put {kept.get(file.path, 0):,} of the {size:,} bytes of {file.path} into the system prompt: "
                f"the instruction files together may take {MAX_TOTAL_BYTES:,}."
            )
    return refused + cut


def within_total(files: Sequence[InstructionFile], total: int = MAX_TOTAL_BYTES) -> list[InstructionFile]:
    """``files`` (root first) cut to ``total`` bytes together: the last (nearest) file keeps its text first; a file
    that no longer fits whole is cut at a line with a note saying so; one with no room left is left out."""
    left = total
    kept: list[InstructionFile] = []
    for found in reversed(files):
        data = found.text.encode()
        if len(data) <= left:
            kept.append(found)
            left -= len(data)
        elif left > 0:
            head = data[:left].decode(errors="ignore").rsplit("\n", 1)[0]
            note = f"\n\n[{found.path.name} cut: the instruction files together may take {total:,} bytes]"
            kept.append(InstructionFile(path=found.path, text=head + note))
            left = 0
    return list(reversed(kept))


def instruction_files(cwd: Path) -> list[Path]:
    """The instruction file of each folder from the repository root (or cwd) down to ``cwd``.

    An entry that is not a folder counts, whatever it is (a link, a FIFO): the reader decides whether
    it may be read, so that a refusal can be reported.
    """
    cwd = cwd.resolve()
    root = _instruction_root(cwd)
    folders = [cwd, *cwd.parents]
    chain = list(reversed(folders[: folders.index(root) + 1]))
    found = []
    for folder in chain:
        for name in INSTRUCTION_FILES:
            candidate = folder / name
            if os.path.lexists(candidate) and not candidate.is_dir():
                found.append(candidate)
                break
    return found


def _instruction_root(cwd: Path) -> Path:
    return repository_root(cwd) or cwd


def _read_instruction_file(path: Path, root: Path) -> InstructionFile:
    try:
        head = read_head(path, limit=MAX_FILE_BYTES, within=root)
    except UnsafeFile as refused:
        return InstructionFile(path=path, refused=refused.reason)
    except OSError:  # missing (a dangling link) or unreadable: nothing to add, nothing to warn about
        return InstructionFile(path=path)
    text = head.data.decode("utf-8", errors="replace")
    if head.cut:
        text += f"\n\n[{path.name} truncated: {head.size:,} bytes, only the first {MAX_FILE_BYTES:,} shown]"
    return InstructionFile(path=path, text=text)


def build_instructions(cwd: Path, contributors: Sequence[InstructionContributor], base: str = BASE_INSTRUCTIONS) -> str:
    """The system prompt: ``base`` followed by every contributor's section, in order."""
    context = InstructionContext(cwd=cwd)
    sections = [base]
    for contributor in contributors:
        section = contributor.contribute(context)
        if section:
            sections.append(section)
    return "\n\n".join(sections)


def default_contributors() -> list[InstructionContributor]:
    """The contributors every session starts with."""
    return [EnvironmentInstructions(), ProjectInstructions()]

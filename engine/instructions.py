"""The system prompt: hive's base instructions plus what contributors add (project files, later skills, memory)."""

from __future__ import annotations

import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from msgspec import Struct

from engine.paths import repository_root

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")
MAX_FILE_BYTES = 32 * 1024

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
        sections = []
        for path in instruction_files(context.cwd):
            text = _read_capped(path)
            if text.strip():
                sections.append(f"## From {path}\n\n{text.strip()}")
        if not sections:
            return None
        return "# Project instructions\n\n" + "\n\n".join(sections)


def instruction_files(cwd: Path) -> list[Path]:
    """The instruction file of each folder from the repository root (or cwd) down to ``cwd``."""
    cwd = cwd.resolve()
    root = repository_root(cwd) or cwd
    folders = [cwd, *cwd.parents]
    chain = list(reversed(folders[: folders.index(root) + 1]))
    found = []
    for folder in chain:
        for name in INSTRUCTION_FILES:
            candidate = folder / name
            if candidate.is_file():
                found.append(candidate)
                break
    return found


def _read_capped(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    text = data[:MAX_FILE_BYTES].decode("utf-8", errors="replace")
    if len(data) > MAX_FILE_BYTES:
        text += f"\n\n[{path.name} truncated: {len(data):,} bytes, only the first {MAX_FILE_BYTES:,} shown]"
    return text


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

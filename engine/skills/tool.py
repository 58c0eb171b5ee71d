"""``load_skill(name, path?)``: a skill's instructions, or one file from its folder, and nothing outside it.

Read-only: it never runs a skill's scripts, and ``allowed-tools`` is shown, not enforced. A ``path``
is refused when it is absolute, contains ``..``, or resolves (through symbolic links) outside the
skill's folder. Each result names the file it shows (``ToolResult.shown_files``), so the read rules
apply to it as to ``read_file`` (see :mod:`engine.policy.search_filter`).
"""

from __future__ import annotations

import html
import os
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Annotated

from msgspec import Meta

from engine.safe_read import UnsafeFile, read_head
from engine.skills.frontmatter import SkillFileError, read_skill_text, split_frontmatter
from engine.skills.model import Skill
from engine.skills.selection import SkillSelection
from engine.tools.args import ToolArgs
from engine.tools.base import ArgsTool, ShownFiles, ToolContext, ToolResult, run_blocking

MAX_FILE_CHARS = 256 * 1024
"""Bytes of one file load_skill reads and returns at most."""
MAX_LISTED_FILES = 100
"""Files of a skill's folder named in the answer at most."""


class LoadSkillArgs(ToolArgs, frozen=True):
    name: Annotated[str, Meta(description="The skill's name, as listed under Skills in the system prompt.")]
    path: Annotated[
        str,
        Meta(
            description="A file inside the skill's folder, relative to it (e.g. references/guide.md). Leave it out "
            "to get the skill's instructions."
        ),
    ] = ""


class LoadSkillTool(ArgsTool[LoadSkillArgs]):
    """load_skill: the instructions of a skill, or a file from the skill's folder."""

    name = "load_skill"
    description = (
        "Load a skill listed under Skills in the system prompt. Without `path` it returns the skill's instructions "
        "(its SKILL.md without the frontmatter) and the files in its folder; with `path` it returns that file, "
        "relative to the skill's folder. Only files inside the skill's folder can be read. It never runs anything."
    )
    args_model = LoadSkillArgs
    read_only = True

    def __init__(self, selection: SkillSelection) -> None:
        self.selection = selection

    async def execute(self, args: LoadSkillArgs, ctx: ToolContext) -> ToolResult:
        skill = self.selection.active.get(args.name.strip())
        if skill is None:
            return ToolResult.error(self._unknown(args.name))
        if not args.path:
            return await run_blocking(lambda: instructions_of(skill))
        return await run_blocking(lambda: file_of(skill, args.path))

    def _unknown(self, name: str) -> str:
        disabled = {skill.name for skill in self.selection.disabled}
        if name in disabled:
            return f"The skill {name!r} is disabled in this session."
        names = sorted(self.selection.active)
        shown = ", ".join(names[:50]) + (f" and {len(names) - 50} more" if len(names) > 50 else "")
        return f"No skill named {name!r}. Available skills: {shown or 'none'}."


def instructions_of(skill: Skill) -> ToolResult:
    """The skill's body wrapped with its name, folder and file list."""
    try:
        _, body = split_frontmatter(read_skill_text(skill.location))
    except SkillFileError as exc:
        return ToolResult.error(f"The skill {skill.name!r} cannot be read: {exc}")
    lines = [f'<skill_content name="{html.escape(skill.name)}">', f"Skill folder: {skill.directory}"]
    if skill.allowed_tools:
        lines.append(f"The skill's allowed-tools (for information; not enforced): {' '.join(skill.allowed_tools)}")
    lines += ["", body or "(The skill has no instructions beyond its description.)"]
    files = skill_files(skill)
    if files:
        lines += ["", f'<skill_resources note="read with load_skill(name="{skill.name}", path=...)">', *files]
        lines.append("</skill_resources>")
    lines.append("</skill_content>")
    return _showing(skill, skill.location.resolve(), "\n".join(lines), "SKILL.md")


def file_of(skill: Skill, raw: str) -> ToolResult:
    """One file from the skill's folder, refusing anything that leads outside it."""
    problem = _path_problem(raw)
    if problem:
        return ToolResult.error(f"load_skill refused path {raw!r}: {problem}")
    base = skill.directory.resolve()
    target = (base / raw).resolve()
    if not target.is_relative_to(base):
        return ToolResult.error(f"load_skill refused path {raw!r}: it leads outside the skill's folder")
    if target.is_dir():
        entries = [str(path.relative_to(base)) for path in _walk(target, base)]
        listing = f"{raw} is a folder of the skill {skill.name!r}; its files:\n" + "\n".join(entries)
        return ToolResult(listing, shown_files=ShownFiles((), lambda hidden: listing))
    try:
        head = read_head(target, limit=MAX_FILE_CHARS, within=base)
    except FileNotFoundError:
        return ToolResult.error(
            f"The skill {skill.name!r} has no file {raw!r}. Its files: {', '.join(skill_files(skill))}"
        )
    except UnsafeFile as refused:
        return ToolResult.error(f"load_skill did not read {raw!r}: it {refused.reason}")
    except OSError as exc:
        return ToolResult.error(f"Cannot read {raw!r}: {exc.strerror or exc}")
    if b"\0" in head.data[:8192]:
        return ToolResult.error(f"{raw} is a binary file ({head.size} bytes); its content is not shown.")
    text = head.data.decode("utf-8", errors="replace")
    if head.cut:
        text += f"\n[{raw} cut at {MAX_FILE_CHARS:,} bytes of {head.size:,}]"
    return _showing(skill, target, text, raw)


def _showing(skill: Skill, path: Path, text: str, shown: str) -> ToolResult:
    """``text`` as the content of the file ``path``, so the read rules can keep it back."""

    def render(hidden: frozenset[str]) -> str:
        return text if str(path) not in hidden else f"(the file {shown} of the skill {skill.name!r} is not shown)"

    return ToolResult(text, shown_files=ShownFiles((str(path),), render))


def _path_problem(raw: str) -> str | None:
    if "\0" in raw:
        return "it contains a NUL character"
    if raw.startswith("~") or PurePosixPath(raw).is_absolute() or PureWindowsPath(raw).is_absolute():
        return "absolute paths are not allowed; give a path relative to the skill's folder"
    if ".." in PurePosixPath(raw.replace("\\", "/")).parts:
        return "'..' is not allowed; give a path inside the skill's folder"
    return None


def skill_files(skill: Skill) -> list[str]:
    """Files in the skill's folder (relative, sorted, hidden ones left out), at most :data:`MAX_LISTED_FILES`."""
    base = skill.directory.resolve()
    files = [str(path.relative_to(base)) for path in _walk(base, base) if path.name not in ("SKILL.md", "skill.md")]
    if len(files) > MAX_LISTED_FILES:
        return [*files[:MAX_LISTED_FILES], f"... and {len(files) - MAX_LISTED_FILES} more"]
    return files


def _walk(folder: Path, base: Path) -> list[Path]:
    found: list[Path] = []
    for current, dirs, names in os.walk(folder):
        dirs[:] = sorted(name for name in dirs if not name.startswith("."))
        here = Path(current)
        found += [here / name for name in sorted(names) if not name.startswith(".")]
        if len(found) > MAX_LISTED_FILES * 2:
            break
    return [path for path in found if path.resolve().is_relative_to(base)]

"""``hive skills validate|list|read-properties|to-prompt``.

``validate PATH...``, ``read-properties`` and ``to-prompt`` print exactly what the reference
validator (skills-ref 0.1.1, command ``agentskills``) prints; where the reference crashes, hive
reports the problem like any other. Nothing here imports litellm or mcp.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine.skills.frontmatter import SkillFileError
from engine.skills.properties import read_properties, to_prompt
from engine.skills.validator import validate_skill
from hive_cli.terminal_text import echo, echo_json

if TYPE_CHECKING:
    from engine.skills.options import SkillOptions


def working_directory(cwd: Path | None) -> Path:
    """``-C DIR`` (which must be a folder) or the current directory, resolved."""
    from engine.errors import UserError

    path = (cwd or Path.cwd()).expanduser()
    if not path.is_dir():
        raise UserError(f"--cwd: {path} is not a directory")
    return path.resolve()


def skill_folder(path: Path) -> Path:
    """A path to a SKILL.md (any case) means its folder, as in the reference."""
    if path.name.lower() == "skill.md" and path.is_file():
        return path.parent
    return path


def validate_paths(paths: Sequence[Path]) -> int:
    """Validate each path in turn, printing as the reference does; 1 if any failed."""
    failed = False
    for raw in paths:
        path = skill_folder(raw)
        problems = validate_skill(path)
        if problems:
            failed = True
            report_failure(path, problems)
        else:
            echo(f"Valid skill: {path}")
    return 1 if failed else 0


def report_failure(path: Path | str, problems: Sequence[str]) -> None:
    """The reference's failure report on stderr."""
    lines = [f"Validation failed for {path}:", *(f"  - {problem}" for problem in problems)]
    echo("\n".join(lines), err=True)


def print_properties(path: Path) -> int:
    """``read-properties``: the frontmatter as JSON, or ``Error: ...``."""
    try:
        properties = read_properties(skill_folder(path))
    except SkillFileError as exc:
        echo(f"Error: {exc}", err=True)
        return 1
    echo_json(json.dumps(properties.to_dict(), indent=2))
    return 0


def print_prompt(paths: Sequence[Path]) -> int:
    """``to-prompt``: the ``<available_skills>`` block, or ``Error: ...`` for the first bad skill."""
    try:
        text = to_prompt([skill_folder(path) for path in paths])
    except SkillFileError as exc:
        echo(f"Error: {exc}", err=True)
        return 1
    echo(text)
    return 0


def validate_discovered(cwd: Path) -> int:
    """Validate every skill folder under the roots strictly and print a summary table; 1 if any failed."""
    from engine.skills.discovery import skill_files
    from engine.skills.model import SkillDiagnostic
    from engine.skills.roots import default_roots

    options = _options(cwd)
    roots = default_roots(cwd, extra=options.extra_roots, include_bundled=options.include_bundled)
    diagnostics: list[SkillDiagnostic] = []
    rows: list[list[str]] = []
    failures: list[tuple[str, list[str]]] = []
    for root in roots:
        for location in skill_files(root.path, diagnostics):
            problems = validate_skill(location.parent)
            shown = _shown(location.parent, cwd)
            rows.append(["invalid" if problems else "valid", root.label, shown])
            if problems:
                failures.append((shown, problems))
    if not rows:
        echo("No skills found. Looked in: " + ", ".join(str(root.path) for root in roots), err=True)
        return 0
    _print_table(["result", "root", "skill folder"], rows)
    echo(
        f"{len(rows)} skill{'s' if len(rows) != 1 else ''}: {len(rows) - len(failures)} valid, {len(failures)} invalid"
    )
    for path, problems in failures:
        report_failure(path, problems)
    return 1 if failures else 0


def list_skills(cwd: Path) -> int:
    """``hive skills list``: every skill found, with its root, status and description."""
    from engine.skills.selection import open_skills

    selection = open_skills(cwd, _options(cwd))
    catalog = selection.catalog
    rows = [
        [skill.name, skill.root.label, selection.status_of(skill), skill.description]
        for skill in catalog.skills.values()
    ]
    rows += [
        [entry.skill.name, entry.skill.root.label, "shadowed", entry.skill.description] for entry in catalog.shadowed
    ]
    rows += [[entry.path.name, entry.root.label, "invalid", entry.message] for entry in catalog.invalid]
    if not rows:
        echo("No skills found. Looked in: " + ", ".join(str(root.path) for root in catalog.roots), err=True)
    else:
        _print_table(["name", "root", "status", "description"], rows, last_flexible=True)
    counts = {
        status: sum(1 for row in rows if row[2] == status)
        for status in ("ok", "dropped", "disabled", "shadowed", "invalid")
    }
    if rows:
        echo(", ".join(f"{count} {status}" for status, count in counts.items() if count))
    for name in selection.not_found:
        echo(f"hive: enabled skill {name!r} was not found", err=True)
    for diagnostic in catalog.diagnostics:
        if diagnostic.severity == "warning":
            echo(f"hive: warning: {_shown(diagnostic.path, cwd)}: {diagnostic.message}", err=True)
    return 0


def _options(cwd: Path) -> SkillOptions:
    from engine.config.loader import load_skill_options

    return load_skill_options(cwd)


def _shown(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def _print_table(headers: list[str], rows: list[list[str]], *, last_flexible: bool = False) -> None:
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    if last_flexible:
        room = shutil.get_terminal_size((120, 24)).columns - sum(widths[:-1]) - 2 * (len(headers) - 1)
        widths[-1] = max(20, room)
    for row in [headers, *rows]:
        cells = [_fit(" ".join(cell.split()), width) for cell, width in zip(row, widths, strict=True)]
        echo("  ".join(cells).rstrip())


def _fit(text: str, width: int) -> str:
    return text.ljust(width) if len(text) <= width else text[: width - 1] + "…"

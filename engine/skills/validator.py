"""Strict validation of a skill folder, identical to the reference validator (skills-ref 0.1.1).

Same checks, same order, same messages: the file and frontmatter problems stop at the first one;
the field checks collect every problem, in the order unknown fields, name, description,
compatibility. Discovery uses the same checks but decides for itself which ones to forgive
(see :mod:`engine.skills.loading`).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

from engine.skills.frontmatter import SkillFileError, find_skill_file, load_skill_file

MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
MAX_COMPATIBILITY_CHARS = 500
SPEC_FIELDS = frozenset({"name", "description", "license", "allowed-tools", "metadata", "compatibility"})
"""The frontmatter keys the Agent Skills specification defines."""


def validate_skill(directory: Path) -> list[str]:
    """Every problem with the skill in ``directory``; an empty list means it is valid."""
    if not directory.exists():
        return [f"Path does not exist: {directory}"]
    if not directory.is_dir():
        return [f"Not a directory: {directory}"]
    skill_file = find_skill_file(directory)
    if skill_file is None:
        return ["Missing required file: SKILL.md"]
    try:
        metadata, _ = load_skill_file(skill_file)
    except SkillFileError as exc:
        return [str(exc)]
    return validate_metadata(metadata, directory)


def validate_metadata(metadata: dict[str, Any], directory: Path | None) -> list[str]:
    """Problems with a parsed frontmatter mapping; the name is compared with ``directory``'s name when given."""
    problems = unknown_field_problems(metadata)
    if "name" not in metadata:
        problems.append("Missing required field in frontmatter: name")
    else:
        problems.extend(name_problems(metadata["name"], directory))
    if "description" not in metadata:
        problems.append("Missing required field in frontmatter: description")
    else:
        problems.extend(description_problems(metadata["description"]))
    if "compatibility" in metadata:
        problems.extend(compatibility_problems(metadata["compatibility"]))
    return problems


def unknown_field_problems(metadata: dict[str, Any]) -> list[str]:
    """One problem naming every key the specification does not define, or none."""
    unknown = sorted(set(metadata) - SPEC_FIELDS)
    if not unknown:
        return []
    return [f"Unexpected fields in frontmatter: {', '.join(unknown)}. Only {sorted(SPEC_FIELDS)} are allowed."]


def is_non_empty_string(value: Any) -> bool:
    """True for a string with something besides whitespace in it."""
    return isinstance(value, str) and bool(value.strip())


def normalized_name(name: str) -> str:
    """The form names are checked and compared in: stripped, then NFKC-normalised."""
    return unicodedata.normalize("NFKC", name.strip())


def name_problems(value: Any, directory: Path | None) -> list[str]:
    """Problems with the ``name`` field, including a mismatch with the folder's name."""
    if not is_non_empty_string(value):
        return ["Field 'name' must be a non-empty string"]
    name = normalized_name(value)
    problems = []
    if len(name) > MAX_NAME_CHARS:
        problems.append(f"Skill name '{name}' exceeds {MAX_NAME_CHARS} character limit ({len(name)} chars)")
    if name != name.lower():
        problems.append(f"Skill name '{name}' must be lowercase")
    if name.startswith("-") or name.endswith("-"):
        problems.append("Skill name cannot start or end with a hyphen")
    if "--" in name:
        problems.append("Skill name cannot contain consecutive hyphens")
    if not all(char.isalnum() or char == "-" for char in name):
        problems.append(
            f"Skill name '{name}' contains invalid characters. Only letters, digits, and hyphens are allowed."
        )
    if directory is not None and unicodedata.normalize("NFKC", directory.name) != name:
        problems.append(f"Directory name '{directory.name}' must match skill name '{name}'")
    return problems


def description_problems(value: Any) -> list[str]:
    """Problems with the ``description`` field (its length counts the raw value, whitespace and all)."""
    if not is_non_empty_string(value):
        return ["Field 'description' must be a non-empty string"]
    if len(value) > MAX_DESCRIPTION_CHARS:
        return [f"Description exceeds {MAX_DESCRIPTION_CHARS} character limit ({len(value)} chars)"]
    return []


def compatibility_problems(value: Any) -> list[str]:
    """Problems with the optional ``compatibility`` field (an empty string is fine)."""
    if not isinstance(value, str):
        return ["Field 'compatibility' must be a string"]
    if len(value) > MAX_COMPATIBILITY_CHARS:
        return [f"Compatibility exceeds {MAX_COMPATIBILITY_CHARS} character limit ({len(value)} chars)"]
    return []

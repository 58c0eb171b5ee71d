"""``read-properties`` and ``to-prompt``, as the reference (skills-ref 0.1.1) does them.

Neither validates: they need a parseable mapping with a non-empty string ``name`` and
``description``. Unknown keys are dropped; other fields pass through as the YAML gave them.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct

from engine.skills.frontmatter import SkillFileError, find_skill_file, load_skill_file
from engine.skills.validator import is_non_empty_string


class SkillProperties(Struct, frozen=True, kw_only=True):
    """The frontmatter fields of a skill, as read (not validated)."""

    name: str
    description: str
    license: Any = None
    compatibility: Any = None
    allowed_tools: Any = None
    metadata: Any = None

    def to_dict(self) -> dict[str, Any]:
        """The reference's JSON shape: name, description, then the optional fields that are present."""
        result: dict[str, Any] = {"name": self.name, "description": self.description}
        for key, value in (
            ("license", self.license),
            ("compatibility", self.compatibility),
            ("allowed-tools", self.allowed_tools),
        ):
            if value is not None:
                result[key] = value
        if self.metadata:
            result["metadata"] = self.metadata
        return result


def read_properties(directory: Path) -> SkillProperties:
    """The properties of the skill in ``directory``; raises ``SkillFileError`` with the reference's message."""
    skill_file = find_skill_file(directory)
    if skill_file is None:
        raise SkillFileError(f"SKILL.md not found in {directory}")
    metadata, _ = load_skill_file(skill_file)
    return properties_from_metadata(metadata)


def properties_from_metadata(metadata: dict[str, Any]) -> SkillProperties:
    """Properties from a parsed frontmatter mapping (name and description required, nothing else checked)."""
    for key in ("name", "description"):
        if key not in metadata:
            raise SkillFileError(f"Missing required field in frontmatter: {key}")
    for key in ("name", "description"):
        if not is_non_empty_string(metadata[key]):
            raise SkillFileError(f"Field '{key}' must be a non-empty string")
    extra = metadata.get("metadata")
    if isinstance(extra, dict):
        extra = {str(key): str(value) for key, value in extra.items()}
    return SkillProperties(
        name=metadata["name"].strip(),
        description=metadata["description"].strip(),
        license=metadata.get("license"),
        compatibility=metadata.get("compatibility"),
        allowed_tools=metadata.get("allowed-tools"),
        metadata=extra,
    )


def to_prompt(directories: Sequence[Path]) -> str:
    """The ``<available_skills>`` XML block for the skills in ``directories`` (resolved, in the order given)."""
    lines = ["<available_skills>"]
    for directory in directories:
        directory = directory.resolve()
        properties = read_properties(directory)
        lines += [
            "<skill>",
            "<name>",
            html.escape(properties.name),
            "</name>",
            "<description>",
            html.escape(properties.description),
            "</description>",
            "<location>",
            str(find_skill_file(directory)),
            "</location>",
            "</skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)

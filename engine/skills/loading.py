"""Loading one skill leniently: what the strict validator rejects but a session can safely use loads with warnings.

A skill is refused (invalid) when it cannot be used or its name is not what the reference validator
accepts: SKILL.md unreadable, no frontmatter, frontmatter that no YAML reader accepts or that is not a
mapping, a missing or empty name or description, a name that is not one line, a name the reference
refuses (its format, or a folder of another name: the name is how the model, the settings and
shadowing know a skill), or (with the default ``unknown_fields="reject"``) keys the specification
does not define. What else the reference validator would reject (an over-long description, a bad
compatibility) loads with a warning.
Frontmatter that strict YAML refuses but ordinary YAML reads (flow lists such as
``allowed-tools: [Read, Grep]``) loads with a warning too.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from msgspec import Struct

from engine.skills.frontmatter import SkillFileError, parse_yaml_mapping, read_skill_text, split_frontmatter
from engine.skills.model import Skill, SkillRoot
from engine.skills.validator import (
    SPEC_FIELDS,
    compatibility_problems,
    description_problems,
    is_non_empty_string,
    name_problems,
    normalized_name,
    unknown_field_problems,
)

if TYPE_CHECKING:
    from engine.skills.strict_cache import Verdict

UnknownFields = Literal["reject", "accept"]


class SkillLoadError(Exception):
    """The skill cannot be loaded; ``str(error)`` says why."""


class LoadPolicy(Struct, frozen=True, kw_only=True):
    """How forgiving loading is."""

    unknown_fields: UnknownFields = "reject"
    """``reject`` (the default, like the reference validator) or ``accept`` with a warning."""


def read_skill(location: Path, root: SkillRoot, policy: LoadPolicy | None = None) -> Skill:
    """Load the skill whose SKILL.md is at ``location``; raises :class:`SkillLoadError`."""
    policy = policy or LoadPolicy()
    warnings: list[str] = []
    try:
        yaml_text, _ = split_frontmatter(read_skill_text(location))
    except SkillFileError as exc:
        raise SkillLoadError(str(exc)) from None
    metadata = _read_mapping(yaml_text, warnings)
    name = _required_text(metadata, "name")
    description = _required_text(metadata, "description")
    if "\n" in name:
        raise SkillLoadError("Field 'name' must be a single line")
    unknown = unknown_field_problems(metadata)
    if unknown and policy.unknown_fields == "reject":
        raise SkillLoadError(unknown[0])
    if unknown:
        fields = ", ".join(sorted(set(metadata) - SPEC_FIELDS))
        warnings.append(f"frontmatter fields outside the specification are ignored: {fields}")
    bad_name = name_problems(metadata["name"], location.parent)
    if bad_name:  # the name is how the model, the settings and shadowing know the skill: judged as the reference does
        raise SkillLoadError("; ".join(bad_name))
    warnings += description_problems(metadata["description"])
    return Skill(
        name=normalized_name(name),
        description=description.strip(),
        location=location.absolute(),
        root=root,
        license=_optional_text(metadata, "license", warnings),
        compatibility=_compatibility(metadata, warnings),
        allowed_tools=_allowed_tools(metadata.get("allowed-tools"), warnings),
        metadata=_metadata(metadata.get("metadata"), warnings),
        warnings=tuple(warnings),
    )


def _read_mapping(yaml_text: str, warnings: list[str]) -> dict[str, Any]:
    try:
        return parse_yaml_mapping(yaml_text)
    except SkillFileError as strict_error:
        lenient = _lenient_mapping(yaml_text)
        if lenient is None:
            raise SkillLoadError(str(strict_error)) from None
        first_line = str(strict_error).splitlines()[0]
        warnings.append(f"frontmatter is not strict YAML ({first_line}); read with an ordinary YAML parser")
        return lenient


def _lenient_mapping(yaml_text: str) -> dict[str, Any] | None:
    """The frontmatter as ordinary YAML reads it, when that gives a mapping with string keys (remembered)."""
    from engine.skills.strict_cache import remembered_readings

    data: dict[str, Any] | None = remembered_readings().verdict(yaml_text, _lenient_reading, reader="PyYAML").data
    return data


def _lenient_reading(yaml_text: str) -> Verdict:
    import yaml

    from engine.config.yaml_reader import load_yaml  # hive's bounded reader: no aliases, bounded nesting
    from engine.skills.strict_cache import Verdict

    try:
        data = load_yaml(yaml_text, duplicate_keys=True)  # as an ordinary YAML reader: the last one wins
    except (yaml.YAMLError, RecursionError):
        return Verdict()
    if not isinstance(data, dict) or not all(isinstance(key, str) for key in data):
        return Verdict()
    return Verdict(data=data)


def _required_text(metadata: dict[str, Any], key: str) -> str:
    if key not in metadata:
        raise SkillLoadError(f"Missing required field in frontmatter: {key}")
    value = metadata[key]
    if not is_non_empty_string(value):
        raise SkillLoadError(f"Field '{key}' must be a non-empty string")
    return str(value).strip()


def _optional_text(metadata: dict[str, Any], key: str, warnings: list[str]) -> str | None:
    value = metadata.get(key)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float | bool):
        return str(value)
    warnings.append(f"field '{key}' is not text and is ignored")
    return None


def _compatibility(metadata: dict[str, Any], warnings: list[str]) -> str | None:
    if "compatibility" not in metadata:
        return None
    problems = compatibility_problems(metadata["compatibility"])
    warnings += problems
    value = metadata["compatibility"]
    return value if isinstance(value, str) else None


def _allowed_tools(value: Any, warnings: list[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(item.strip() for item in value if item.strip())
    warnings.append("field 'allowed-tools' is neither a space-separated string nor a list of strings; ignored")
    return ()


def _metadata(value: Any, warnings: list[str]) -> dict[str, str]:
    if value is None or value == "":
        return {}
    if isinstance(value, dict):
        return {str(key): str(item) for key, item in value.items()}
    warnings.append("field 'metadata' is not a mapping; ignored")
    return {}

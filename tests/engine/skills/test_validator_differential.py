"""hive's validator, read-properties and to-prompt give exactly what the reference library (skills-ref 0.1.1) gives.

Thousands of generated skill folders, compared in-process with the reference's own functions. Where
the reference crashes, hive must instead report exactly one plain problem. The CLI is compared
separately, against the reference's command, in tests/hive_cli/test_skills_differential.py.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from skills_ref import errors as ref_errors
from skills_ref import parser as ref_parser
from skills_ref import prompt as ref_prompt
from skills_ref import validator as ref_validator

from engine.skills.frontmatter import SkillFileError
from engine.skills.properties import read_properties, to_prompt
from engine.skills.validator import validate_skill
from tests.engine.skills.skill_cases import SkillCase, skill_case

CASES = settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck), database=None)


def reference(call, *args):  # type: ignore[no-untyped-def]
    """("ok", value), ("error", message) for the reference's own errors, or ("crash", type) for anything else."""
    try:
        return ("ok", call(*args))
    except ref_errors.SkillError as exc:
        return ("error", str(exc))
    except Exception as exc:
        return ("crash", type(exc).__name__)


def ours(call, *args):  # type: ignore[no-untyped-def]
    try:
        return ("ok", call(*args))
    except SkillFileError as exc:
        return ("error", str(exc))


def in_tmp(case: SkillCase):  # type: ignore[no-untyped-def]
    directory = tempfile.TemporaryDirectory()
    return directory, case.write(Path(directory.name))


@CASES
@given(skill_case())
def test_validation_matches_the_reference_on_generated_skills(case: SkillCase) -> None:
    directory, folder = in_tmp(case)
    with directory:
        expected = reference(ref_validator.validate, folder)
        got = validate_skill(folder)
        if expected[0] == "crash":
            assert len(got) == 1 and got[0], got
        else:
            assert got == expected[1]


@CASES
@given(skill_case())
def test_read_properties_and_to_prompt_match_the_reference_on_generated_skills(case: SkillCase) -> None:
    directory, folder = in_tmp(case)
    with directory:
        expected = reference(ref_parser.read_properties, folder)
        got = ours(read_properties, folder)
        if expected[0] == "crash":
            assert got[0] == "error" and got[1], got
            return
        if expected[0] == "ok":
            assert got[0] == "ok"
            assert json.dumps(got[1].to_dict(), indent=2) == json.dumps(expected[1].to_dict(), indent=2)
        else:
            assert got == expected
        assert ours(to_prompt, [folder]) == reference(ref_prompt.to_prompt, [folder])


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (
            b"---\nname: x\ndescription: \xff\n---\n",
            "SKILL.md is not valid UTF-8 text (invalid start byte at byte 25, line 3); save it as UTF-8",
        ),
        (
            "---\nname: x\n---\n".encode("utf-16"),
            "SKILL.md is not valid UTF-8 text (invalid start byte at byte 0, line 1); save it as UTF-8",
        ),
        (
            b"---\nname: x\ndescription: a\x07b\n---\n",
            "Invalid YAML in frontmatter: character U+0007 (line 3) is not allowed in YAML",
        ),
    ],
)
def test_where_the_reference_crashes_hive_reports_one_plain_problem(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(content)
    with pytest.raises(Exception):  # noqa: B017 - the reference really does crash here
        ref_validator.validate(folder)
    [got] = validate_skill(folder)
    assert got == problem


def test_a_skill_md_that_is_a_folder_is_reported_not_crashed_on(tmp_path: Path) -> None:
    (tmp_path / "x" / "SKILL.md").mkdir(parents=True)
    assert validate_skill(tmp_path / "x") == ["SKILL.md is a directory, not a file"]


def test_a_skill_md_that_is_a_fifo_is_reported_instead_of_blocking(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    os.mkfifo(tmp_path / "x" / "SKILL.md")
    assert validate_skill(tmp_path / "x") == ["SKILL.md is not a regular file"]

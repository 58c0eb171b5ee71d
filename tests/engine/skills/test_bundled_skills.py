"""The skills that ship with hive are valid (for hive and for the reference validator) and get installed."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from engine.skills.discovery import discover_skills
from engine.skills.model import SkillRoot
from engine.skills.roots import INSTALLED_BUNDLE, bundled_skills_dir
from engine.skills.validator import validate_skill

REPOSITORY = Path(__file__).resolve().parents[3]
BUNDLED = REPOSITORY / "skills"


def bundled_folders() -> list[Path]:
    return sorted(path.parent for path in BUNDLED.glob("*/SKILL.md"))


def test_at_least_three_bundled_skills_are_found_next_to_the_engine() -> None:
    assert bundled_skills_dir() == BUNDLED
    assert len(bundled_folders()) >= 3


def test_every_bundled_skill_is_valid_for_hive_and_for_the_reference() -> None:
    folders = [str(folder) for folder in bundled_folders()]
    assert all(validate_skill(Path(folder)) == [] for folder in folders)
    for folder in folders:
        reference = subprocess.run(
            [str(Path(sys.executable).parent / "agentskills"), "validate", folder], capture_output=True, text=True
        )
        assert (reference.returncode, reference.stdout) == (0, f"Valid skill: {folder}\n")


def test_bundled_skills_load_without_warnings_and_their_instructions_have_substance() -> None:
    catalog = discover_skills([SkillRoot(BUNDLED, "bundled")])
    assert catalog.diagnostics == () and catalog.invalid == ()
    for skill in catalog.skills.values():
        body = skill.location.read_text().split("---", 2)[2]
        assert len(body.split()) > 250, skill.name
        assert len(skill.description) > 80, skill.name


def test_a_built_wheel_installs_every_bundled_file_as_data() -> None:
    config = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())
    data_files = config["tool"]["setuptools"]["data-files"]
    installed = {
        Path(target) / Path(pattern).name
        for target, patterns in data_files.items()
        for source in patterns
        for pattern in [str(path.relative_to(REPOSITORY)) for path in REPOSITORY.glob(source)]
    }
    shipped = {INSTALLED_BUNDLE / path.relative_to(BUNDLED) for path in BUNDLED.rglob("*") if path.is_file()}
    assert shipped == installed

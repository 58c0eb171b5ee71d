"""strictyaml's verdict on a frontmatter outside the fast subset is remembered across runs (issue #42)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BROKEN = "---\nname: broken-skill\ndescription: Does: things: here\nbad: [unclosed\n---\nBody.\n"
LENIENT = (
    "---\nname: lenient-skill\ndescription: Flow style, which strictyaml refuses\nmetadata: {author: me}\n---\nB.\n"
)

DISCOVER = """
import json, sys
from pathlib import Path
from engine.skills.discovery import SkillRoot, discover_skills
catalog = discover_skills([SkillRoot(path=Path(sys.argv[1]), label="user")])
print(json.dumps({
    "skills": {s.name: list(s.warnings) for s in catalog.skills.values()},
    "invalid": sorted(f"{bad.path}: {bad.message}" for bad in catalog.invalid),
    "strictyaml_imported": "strictyaml" in sys.modules,
}, default=str))
"""


def discover_in_a_new_process(skills: Path, home: Path) -> dict[str, object]:
    env = {**os.environ, "HIVE_HOME": str(home), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", DISCOVER, str(skills)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for name, text in (("broken-skill", BROKEN), ("lenient-skill", LENIENT)):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(text)
    return root


def test_a_second_start_reads_what_strictyaml_said_without_importing_it(skills: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = discover_in_a_new_process(skills, home)
    second = discover_in_a_new_process(skills, home)

    assert first["strictyaml_imported"] is True and second["strictyaml_imported"] is False
    assert first["skills"] == second["skills"]
    assert first["invalid"] == second["invalid"]
    (warning,) = first["skills"]["lenient-skill"]  # type: ignore[index]
    assert warning.startswith("frontmatter is not strict YAML (Invalid YAML in frontmatter: ")
    assert len(first["invalid"]) == 1 and "mapping values are not allowed" in first["invalid"][0]  # type: ignore[arg-type,index]


def test_a_changed_frontmatter_is_judged_again(skills: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    discover_in_a_new_process(skills, home)
    (skills / "lenient-skill" / "SKILL.md").write_text(LENIENT.replace("author: me", "author: you"))

    again = discover_in_a_new_process(skills, home)

    assert again["strictyaml_imported"] is True
    assert "lenient-skill" in again["skills"]  # type: ignore[operator]

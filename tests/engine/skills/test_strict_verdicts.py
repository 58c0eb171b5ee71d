"""Readings of a frontmatter outside the fast subset (strictyaml's, then ordinary YAML's) are remembered across runs (#42)."""

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
    "yaml_imported": "yaml" in sys.modules,
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
    assert first["yaml_imported"] is True and second["yaml_imported"] is False  # the ordinary reading remembered too
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


AGENTS = """
import json, sys
from pathlib import Path
from engine.delegate.definitions import load_agents
catalog = load_agents(Path(sys.argv[1]))
found = {name: [list(agent.tools or ()), agent.description] for name, agent in catalog.agents.items()}
print(json.dumps({"agents": found, "problems": list(catalog.problems), "yaml_imported": "yaml" in sys.modules}))
"""


def agents_in_a_new_process(project: Path, home: Path) -> dict[str, object]:
    env = {**os.environ, "HIVE_HOME": str(home), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", AGENTS, str(project)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_an_agent_files_flow_list_is_read_once_and_a_date_every_time(tmp_path: Path) -> None:
    folder = tmp_path / "project" / ".ironhive" / "agents"
    folder.mkdir(parents=True)
    (folder / "flow.md").write_text("---\nname: flow\ndescription: Lists.\ntools: [read_file, grep_files]\n---\nGo.\n")
    home = tmp_path / "home"
    first = agents_in_a_new_process(tmp_path / "project", home)
    second = agents_in_a_new_process(tmp_path / "project", home)
    assert first["agents"]["flow"] == [["read_file", "grep_files"], "Lists."]  # type: ignore[index]
    assert second == {**first, "yaml_imported": False}

    # a date does not come back from the cache as a date: such a reading is made again at each start
    (folder / "flow.md").write_text("---\nname: flow\ndescription: 2026-01-01\ntools: [read_file]\n---\nGo.\n")
    dated = [agents_in_a_new_process(tmp_path / "project", home) for _ in range(2)]
    assert dated[0] == dated[1] and dated[1]["yaml_imported"] is True


def test_a_number_too_large_to_keep_is_read_again_and_the_run_ends_cleanly(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    (skills / "big-skill").mkdir(parents=True)
    text = "---\nname: big-skill\ndescription: Flow style\nmetadata: {n: 99999999999999999999}\n---\nB.\n"
    (skills / "big-skill" / "SKILL.md").write_text(text)
    env = {**os.environ, "HIVE_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", DISCOVER, str(skills)], env=env, capture_output=True, text=True, timeout=120
        )
        for _ in range(2)
    ]
    assert [(run.returncode, run.stderr) for run in runs] == [(0, ""), (0, "")]  # no traceback when the cache is saved
    second = json.loads(runs[1].stdout)
    assert second["yaml_imported"] is True  # the reading with the huge number was not remembered: read again
    assert json.loads(runs[0].stdout)["skills"] == second["skills"]

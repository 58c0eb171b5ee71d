"""Command, agent and skill files (markdown with frontmatter) are read under a size bound and never block.

A project hive may not trust can put a FIFO, a huge file, an alias bomb or deep nesting where these
files are found; each is one reported problem and the other files are still read.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.custom_commands import MAX_COMMAND_BYTES, discover_commands
from engine.delegate.definitions import load_agents
from engine.skills.discovery import discover_skills
from engine.skills.frontmatter import MAX_SKILL_FILE_BYTES
from engine.skills.model import SkillRoot


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def oversized(path: Path, limit: int) -> Path:
    return write(path, "---\ndescription: big\n---\n" + "x" * limit)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def test_a_fifo_or_an_oversized_command_file_is_a_problem_and_the_others_still_load(
    project: Path, tmp_path: Path
) -> None:
    folder = project / ".ironhive" / "commands"
    write(folder / "ok.md", "Say hello.")
    os.mkfifo(folder / "pipe.md")
    oversized(folder / "big.md", MAX_COMMAND_BYTES)

    found = discover_commands(project, home=tmp_path)

    assert list(found.commands) == ["ok"]
    assert sorted(found.problems) == [
        f"{folder / 'big.md'}: is larger than 256 KiB",
        f"{folder / 'pipe.md'}: is a FIFO, not a regular file",
    ]


def test_a_command_frontmatter_with_aliases_or_deep_nesting_is_a_problem_not_a_blow_up(
    project: Path, tmp_path: Path
) -> None:
    folder = project / ".ironhive" / "commands"
    levels = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    levels += [f"a{n}: &a{n} [{','.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 9)]
    write(folder / "bomb.md", "---\n" + "\n".join(levels) + "\ndescription: *a8\n---\nBody.")
    write(folder / "deep.md", "---\ndescription: " + "[" * 2000 + "]" * 2000 + "\n---\nBody.")

    found = discover_commands(project, home=tmp_path)

    assert found.commands == {}
    bomb, deep = sorted(found.problems)
    assert bomb.startswith(f"{folder / 'bomb.md'}:3: the frontmatter is not valid YAML: YAML aliases")
    assert deep.startswith(f"{folder / 'deep.md'}:2: the frontmatter is not valid YAML: nested too deeply")


def test_an_oversized_or_fifo_agent_file_is_a_problem_and_its_agent_is_not_offered(project: Path) -> None:
    folder = project / ".ironhive" / "agents"
    write(folder / "ok.md", "---\ndescription: Helps.\n---\nHelp.\n")
    big = oversized(folder / "big.md", MAX_SKILL_FILE_BYTES)
    os.mkfifo(folder / "pipe.md")

    catalog = load_agents(project)

    assert "ok" in catalog.agents and "big" not in catalog.agents and "pipe" not in catalog.agents
    assert sorted(catalog.problems) == [
        f"agent file {big}: big.md is larger than 1 MiB",
        f"agent file {folder / 'pipe.md'}: pipe.md is not a regular file",
    ]


def test_an_oversized_skill_file_or_a_deeply_nested_frontmatter_is_a_diagnostic(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root / "ok" / "SKILL.md", "---\nname: ok\ndescription: Fine.\n---\nDo it.\n")
    oversized(root / "big" / "SKILL.md", MAX_SKILL_FILE_BYTES)
    deep = "[" * 2000 + "]" * 2000
    write(root / "deep" / "SKILL.md", f"---\nname: deep\ndescription: x\nmetadata: {deep}\n---\nDo it.\n")

    catalog = discover_skills([SkillRoot(root, "project")])

    assert list(catalog.skills) == ["ok"]
    messages = {problem.path.name: problem.message for problem in catalog.invalid}
    assert messages["big"] == "SKILL.md is larger than 1 MiB"
    assert messages["deep"].startswith("Invalid YAML in frontmatter")

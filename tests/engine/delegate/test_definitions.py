"""Agent definition files: the frontmatter read like SKILL.md's, one clear error per unusable file."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.delegate.definitions import AgentFileError, load_agents, read_agent_file
from tests.support.delegation import write


def test_a_full_definition_is_read_with_every_field(tmp_path: Path) -> None:
    path = write(
        tmp_path / "reviewer.md",
        "---\nname: reviewer\ndescription: |\n  Reviews diffs.\ntools:\n  - read_file\n  - mcp__github__*\n"
        "model: openai/gpt-4o\nmax_tool_turns: 7\nreasoning: high\n---\n\nYou review diffs.\n\nCarefully.\n",
    )
    agent = read_agent_file(path)
    assert (agent.name, agent.description, agent.prompt) == (
        "reviewer",
        "Reviews diffs.",
        "You review diffs.\n\nCarefully.",
    )
    assert agent.tools == ("read_file", "mcp__github__*")
    assert (agent.model, agent.max_tool_turns, agent.reasoning, agent.source) == ("openai/gpt-4o", 7, "high", str(path))


def test_a_flow_list_is_read_like_a_block_list(tmp_path: Path) -> None:
    flow = read_agent_file(
        write(tmp_path / "a" / "lint.md", "---\ndescription: Lints.\ntools: [read_file, grep_files]\n---\nLint.\n")
    )
    block = read_agent_file(
        write(
            tmp_path / "b" / "lint.md", "---\ndescription: Lints.\ntools:\n  - read_file\n  - grep_files\n---\nLint.\n"
        )
    )
    assert flow.tools == block.tools == ("read_file", "grep_files")


def test_a_file_is_parsed_again_only_once_it_changes(tmp_path: Path) -> None:
    path = write(tmp_path / "helper.md", "---\ndescription: Helps.\n---\nHelp.\n")
    first = read_agent_file(path)
    assert read_agent_file(path) is first  # unchanged: the kept definition
    path.write_text("---\ndescription: Helps more.\n---\nHelp.\n")
    assert read_agent_file(path).description == "Helps more."
    path.write_text("---\ndescription: x\nmax_tool_turns: many\n---\nbody\n")
    for _ in range(2):  # a broken file's error is kept too, and said the same way each time
        with pytest.raises(AgentFileError, match="max_tool_turns"):
            read_agent_file(path)


def test_the_name_defaults_to_the_file_name_and_absent_tools_mean_all(tmp_path: Path) -> None:
    agent = read_agent_file(write(tmp_path / "helper.md", "---\ndescription: Helps.\n---\nHelp.\n"))
    assert (agent.name, agent.tools, agent.model, agent.max_tool_turns) == ("helper", None, None, None)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("just text\n", "must start with YAML frontmatter"),
        ("---\ndescription: x\n", "not closed"),
        ("---\nname: other\ndescription: x\n---\nbody\n", "must match the file name"),
        ("---\ndescription: x\nmax_tool_turns: many\n---\nbody\n", "max_tool_turns"),
        ("---\ndescription: x\ncolour: red\n---\nbody\n", "colour"),
        ("---\nname: x\n---\nbody\n", "description"),
        ("---\ndescription: x\nreasoning: extreme\n---\nbody\n", "reasoning"),
        ("---\ndescription: x\ntools: [read_file\n---\nbody\n", "invalid YAML"),
        ("---\ndescription: x\ntools: [read_file]\nmodel: *other\n---\nbody\n", "aliases"),
        ("---\ndescription: x\n---\n\n", "no system prompt"),
    ],
)
def test_an_unusable_file_is_one_error_naming_it(tmp_path: Path, text: str, problem: str) -> None:
    path = write(tmp_path / "x.md", text)
    with pytest.raises(AgentFileError) as caught:
        read_agent_file(path)
    message = str(caught.value)
    assert message.startswith(f"agent file {path}: ") and problem in message and "\n" not in message.strip()


def test_a_project_agent_overrides_the_users_which_overrides_a_built_in(tmp_path: Path, isolated_hive: Path) -> None:
    write(isolated_hive / "config" / "agents" / "explore.md", "---\ndescription: user explore\n---\nU.\n")
    write(isolated_hive / "config" / "agents" / "mine.md", "---\ndescription: user only\n---\nM.\n")
    write(tmp_path / ".ironhive" / "agents" / "mine.md", "---\ndescription: project mine\n---\nP.\n")
    catalog = load_agents(tmp_path)
    assert catalog.agents["explore"].description == "user explore"
    assert catalog.agents["mine"].description == "project mine"
    assert catalog.agents["general"].source == "built-in" and catalog.problems == ()

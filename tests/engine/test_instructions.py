"""Project instructions: AGENTS.md (or CLAUDE.md) from the repository root down to the working directory."""

from __future__ import annotations

from pathlib import Path

from engine.instructions import (
    BASE_INSTRUCTIONS,
    InstructionContext,
    ProjectInstructions,
    build_instructions,
    default_contributors,
    instruction_files,
)


def make_repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("Root rule: use tabs.")
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "CLAUDE.md").write_text("Package rule from CLAUDE.md.")
    (tmp_path / "pkg" / "sub" / "AGENTS.md").write_text("Sub rule: no globals.")
    (tmp_path / "pkg" / "sub" / "CLAUDE.md").write_text("Ignored: AGENTS.md wins in this folder.")
    return tmp_path


def test_files_are_collected_from_the_repository_root_down_to_the_working_directory(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    files = instruction_files(repo / "pkg" / "sub")
    assert files == [repo / "AGENTS.md", repo / "pkg" / "CLAUDE.md", repo / "pkg" / "sub" / "AGENTS.md"]


def test_folders_above_the_repository_root_are_not_read(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("outside the repo")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    assert instruction_files(repo) == []


def test_without_a_repository_only_the_working_directory_counts(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("parent")
    work = tmp_path / "work"
    work.mkdir()
    (work / "CLAUDE.md").write_text("here")
    assert instruction_files(work) == [work / "CLAUDE.md"]


def test_the_system_prompt_holds_the_base_the_environment_and_the_project_rules_in_order(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    prompt = build_instructions(repo / "pkg" / "sub", default_contributors())
    assert prompt.startswith(BASE_INSTRUCTIONS)
    assert f"Working directory: {repo / 'pkg' / 'sub'}" in prompt
    positions = [prompt.index(rule) for rule in ("Root rule", "Package rule", "Sub rule")]
    assert positions == sorted(positions)
    assert "Ignored" not in prompt


def test_a_huge_instruction_file_is_capped_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("x" * 100_000)
    section = ProjectInstructions().contribute(InstructionContext(cwd=tmp_path))
    assert section is not None
    assert "truncated: 100,000 bytes" in section
    assert len(section) < 40_000

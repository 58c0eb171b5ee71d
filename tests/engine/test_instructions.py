"""Project instructions: AGENTS.md (or CLAUDE.md) from the repository root down to the working directory."""

from __future__ import annotations

import os
from pathlib import Path

from engine.instructions import (
    BASE_INSTRUCTIONS,
    MAX_FILE_BYTES,
    MAX_TOTAL_BYTES,
    InstructionContext,
    ProjectInstructions,
    build_instructions,
    default_contributors,
    instruction_files,
    instruction_notices,
    read_instruction_files,
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


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    return repo


def test_an_instruction_file_linked_into_proc_or_out_of_the_repository_is_refused_and_reported(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".bash_history").write_text("export TOKEN=history-canary\n")
    (repo / "AGENTS.md").symlink_to("/proc/self/environ")
    (repo / "sub").mkdir()
    (repo / "sub" / "CLAUDE.md").symlink_to("../../home/.bash_history")

    read = read_instruction_files(repo / "sub")

    assert [found.text for found in read] == ["", ""]
    assert read[0].refused.startswith("leads to /proc/") and "outside" in read[1].refused
    assert ProjectInstructions().contribute(InstructionContext(cwd=repo / "sub")) is None
    notices = instruction_notices(repo / "sub")
    assert notices[0].startswith(f"hive did not read the instruction file {repo / 'AGENTS.md'}: it leads to /proc/")
    assert notices[1].startswith(f"hive did not read the instruction file {repo / 'sub' / 'CLAUDE.md'}: it leads to ")


def test_a_link_that_stays_in_the_repository_is_read(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "docs").mkdir()
    (repo / "docs" / "rules.md").write_text("Rule kept in docs.")
    (repo / "AGENTS.md").symlink_to("docs/rules.md")

    section = ProjectInstructions().contribute(InstructionContext(cwd=repo))

    assert section is not None and "Rule kept in docs." in section
    assert instruction_notices(repo) == []


def test_a_fifo_named_agents_md_is_refused_without_blocking(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    os.mkfifo(repo / "AGENTS.md")  # a regression blocks in open(); pytest-timeout ends it

    assert ProjectInstructions().contribute(InstructionContext(cwd=repo)) is None
    assert instruction_notices(repo) == [
        f"hive did not read the instruction file {repo / 'AGENTS.md'}: it is a FIFO, not a regular file."
    ]


def test_a_sparse_instruction_file_of_2_gb_is_read_only_up_to_the_cap(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    with (repo / "AGENTS.md").open("wb") as file:
        file.write(b"Rule: be brief.\n")
        file.truncate(2 * 1024**3)

    (found,) = read_instruction_files(repo)

    assert found.text.startswith("Rule: be brief.\n")
    assert found.text.endswith(f"[AGENTS.md truncated: {2 * 1024**3:,} bytes, only the first {MAX_FILE_BYTES:,} shown]")
    assert len(found.text) < MAX_FILE_BYTES + 200


def test_the_files_together_stay_within_the_total_the_nearest_first_and_the_cut_is_said(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    deep = repo / "pkg" / "sub"
    deep.mkdir(parents=True)
    for folder, word in ((repo, "root"), (repo / "pkg", "package"), (deep, "sub")):
        (folder / "AGENTS.md").write_text("".join(f"{word} rule {n}.\n" for n in range(1500)))  # 22-28 KB each

    section = ProjectInstructions().contribute(InstructionContext(cwd=deep))
    notices = instruction_notices(deep)

    assert section is not None and len(section.encode()) < MAX_TOTAL_BYTES + 1_000
    assert "sub rule 1499." in section and "package rule 1499." in section
    assert "root rule 0." in section and "root rule 1499." not in section
    assert f"[AGENTS.md cut: the instruction files together may take {MAX_TOTAL_BYTES:,} bytes]" in section
    assert [line.split(" bytes of ")[1].split(" into")[0] for line in notices if "into the system prompt" in line] == [
        str(repo / "AGENTS.md")
    ]

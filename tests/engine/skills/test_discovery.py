"""Discovery: roots in priority order, shadowing, lenient loading with diagnostics, and it never throws."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.skills.discovery import MAX_DEPTH, discover_skills
from engine.skills.loading import LoadPolicy
from engine.skills.model import SkillRoot
from engine.skills.roots import bundled_skills_dir, default_roots


def write_skill(root: Path, folder: str, frontmatter: str, body: str = "Do the thing.\n") -> Path:
    directory = root / folder
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "SKILL.md").write_text(f"---\n{frontmatter}\n---\n{body}")
    return directory


def simple(name: str, description: str = "Does something useful.") -> str:
    return f"name: {name}\ndescription: {description}"


def test_the_default_roots_are_project_ironhive_then_project_agents_then_user_then_bundled(
    tmp_path: Path, isolated_hive: Path
) -> None:
    (tmp_path / ".git").mkdir()
    work = tmp_path / "src"
    work.mkdir()
    roots = default_roots(work)
    assert [(root.label, root.path) for root in roots] == [
        ("project", tmp_path / ".ironhive" / "skills"),
        ("project-agents", tmp_path / ".agents" / "skills"),
        ("user", isolated_hive / "config" / "skills"),
        ("bundled", bundled_skills_dir()),
    ]
    assert default_roots(work, include_bundled=False)[-1].label == "user"
    extra = default_roots(work, extra=[tmp_path / "shared"])
    assert [root.label for root in extra] == ["project", "project-agents", "extra", "user", "bundled"]


def test_the_first_root_wins_a_name_collision_and_the_shadowed_skill_is_reported(tmp_path: Path) -> None:
    high, low = tmp_path / "high", tmp_path / "low"
    write_skill(high, "review", simple("review", "Project review."))
    write_skill(low, "review", simple("review", "User review."))
    write_skill(low, "other", simple("other"))
    catalog = discover_skills([SkillRoot(high, "project"), SkillRoot(low, "user")])

    assert list(catalog.skills) == ["review", "other"]
    assert catalog.skills["review"].description == "Project review."
    [shadowed] = catalog.shadowed
    assert shadowed.skill.root.label == "user" and shadowed.winner.root.label == "project"
    assert any("shadowed by" in d.message and d.path == low / "review" for d in catalog.diagnostics)


def test_invalid_skills_land_in_diagnostics_and_discovery_goes_on(tmp_path: Path) -> None:
    write_skill(tmp_path, "good", simple("good"))
    write_skill(tmp_path, "no-description", "name: no-description")
    (tmp_path / "no-frontmatter").mkdir()
    (tmp_path / "no-frontmatter" / "SKILL.md").write_text("# just markdown\n")
    (tmp_path / "bad-bytes").mkdir()
    (tmp_path / "bad-bytes" / "SKILL.md").write_bytes(b"---\nname: bad-bytes\ndescription: \xff\n---\n")
    (tmp_path / "a-folder" / "SKILL.md").mkdir(parents=True)
    catalog = discover_skills([SkillRoot(tmp_path, "project")])

    assert list(catalog.skills) == ["good"]
    problems = {entry.path.name: entry.message for entry in catalog.invalid}
    assert problems == {
        "a-folder": "SKILL.md is a directory, not a file",
        "bad-bytes": "SKILL.md is not valid UTF-8 text (invalid start byte at byte 33, line 3); save it as UTF-8",
        "no-description": "Missing required field in frontmatter: description",
        "no-frontmatter": "SKILL.md must start with YAML frontmatter (---)",
    }
    assert {d.path.name for d in catalog.diagnostics if d.severity == "error"} == set(problems)


def test_unknown_frontmatter_keys_are_rejected_by_default_and_accepted_with_a_warning_on_request(
    tmp_path: Path,
) -> None:
    write_skill(tmp_path, "branch", simple("branch") + "\nargument-hint: '[description]'\nversion: 2")
    root = [SkillRoot(tmp_path, "project")]

    strict = discover_skills(root)
    assert strict.skills == {}
    assert strict.invalid[0].message.startswith("Unexpected fields in frontmatter: argument-hint, version. Only [")

    lenient = discover_skills(root, LoadPolicy(unknown_fields="accept"))
    skill = lenient.skills["branch"]
    assert skill.warnings == ("frontmatter fields outside the specification are ignored: argument-hint, version",)
    assert [d.severity for d in lenient.diagnostics] == ["warning"]


def test_what_the_strict_validator_rejects_but_a_session_can_use_loads_with_warnings(tmp_path: Path) -> None:
    write_skill(tmp_path, "deploy", simple("deploy", "x" * 1100) + "\ncompatibility: 42\nmetadata:\n  a: b")
    write_skill(tmp_path, "flow", "name: flow\ndescription: Flow lists.\nallowed-tools: [Read, Grep]")
    catalog = discover_skills([SkillRoot(tmp_path, "project")])

    deploy = catalog.skills["deploy"]
    assert deploy.warnings == ("Description exceeds 1024 character limit (1100 chars)",)
    assert deploy.metadata == {"a": "b"} and deploy.compatibility == "42"
    flow = catalog.skills["flow"]
    assert flow.allowed_tools == ("Read", "Grep")
    assert flow.warnings[0].startswith("frontmatter is not strict YAML (Invalid YAML in frontmatter: While scanning)")


def test_a_name_the_reference_validator_refuses_makes_the_skill_invalid_and_it_is_not_offered(tmp_path: Path) -> None:
    write_skill(tmp_path, "vercel-deploy", simple("deploy"))
    write_skill(tmp_path, "Shout", simple("Shout"))
    write_skill(tmp_path, "fine", simple("fine"))
    catalog = discover_skills([SkillRoot(tmp_path, "project")])

    assert list(catalog.skills) == ["fine"]
    invalid = {entry.path.name: entry.message for entry in catalog.invalid}
    assert invalid == {
        "vercel-deploy": "Directory name 'vercel-deploy' must match skill name 'deploy'",
        "Shout": "Skill name 'Shout' must be lowercase",
    }
    assert [d.severity for d in catalog.diagnostics] == ["error", "error"]


def test_allowed_tools_is_parsed_from_a_string_or_a_list(tmp_path: Path) -> None:
    write_skill(tmp_path, "a", simple("a") + "\nallowed-tools: Bash(git:*) Read")
    write_skill(tmp_path, "b", simple("b") + "\nallowed-tools:\n  - Read\n  - Write")
    skills = discover_skills([SkillRoot(tmp_path, "p")]).skills
    assert skills["a"].allowed_tools == ("Bash(git:*)", "Read")
    assert skills["b"].allowed_tools == ("Read", "Write")


def test_nested_skills_are_found_to_a_bounded_depth_and_hidden_folders_are_skipped(tmp_path: Path) -> None:
    write_skill(tmp_path / "group" / "sub", "deep", simple("deep"))
    write_skill(tmp_path / ("d/" * MAX_DEPTH).rstrip("/"), "too-deep", simple("too-deep"))
    write_skill(tmp_path / ".hidden", "secret", simple("secret"))
    write_skill(tmp_path / "node_modules", "dep", simple("dep"))
    write_skill(tmp_path / "outer", "inner", simple("inner"))
    write_skill(tmp_path, "outer", simple("outer"))
    skills = discover_skills([SkillRoot(tmp_path, "p")]).skills
    assert sorted(skills) == ["deep", "outer"]


def test_symbolic_links_to_skills_are_followed_and_loops_do_not_hang(tmp_path: Path) -> None:
    shared = write_skill(tmp_path / "shared", "linked", simple("linked"))
    root = tmp_path / "root"
    root.mkdir()
    (root / "linked").symlink_to(shared)
    (root / "loop").symlink_to(root)
    catalog = discover_skills([SkillRoot(root, "p")])
    assert list(catalog.skills) == ["linked"]


def test_missing_roots_are_fine_and_a_root_that_is_a_file_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    catalog = discover_skills([SkillRoot(tmp_path / "missing", "a"), SkillRoot(tmp_path / "file", "b")])
    assert catalog.skills == {}
    assert [(d.path.name, d.severity) for d in catalog.diagnostics] == [("file", "warning")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads unreadable folders")
def test_an_unreadable_folder_is_a_warning_not_an_exception(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    write_skill(locked, "x", simple("x"))
    locked.chmod(0)
    try:
        catalog = discover_skills([SkillRoot(tmp_path, "p")])
    finally:
        locked.chmod(0o755)
    assert catalog.skills == {} and catalog.diagnostics[0].severity == "warning"


def test_a_lower_case_skill_md_is_found_like_the_reference_finds_it(tmp_path: Path) -> None:
    (tmp_path / "lower").mkdir()
    (tmp_path / "lower" / "skill.md").write_text("---\nname: lower\ndescription: Lower case.\n---\n")
    skill = discover_skills([SkillRoot(tmp_path, "p")]).skills["lower"]
    assert skill.location == tmp_path / "lower" / "skill.md"


def test_a_skill_is_parsed_once_and_again_when_its_skill_md_changes(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "lint", simple("lint", "Lints the code."))
    root = [SkillRoot(tmp_path, "project")]

    first = discover_skills(root).skills["lint"]
    again = discover_skills(root).skills["lint"]
    (folder / "SKILL.md").write_text("---\nname: lint\ndescription: Lints the code, twice.\n---\nDo it.\n")
    changed = discover_skills(root).skills["lint"]
    (folder / "SKILL.md").write_text("---\nname: other\ndescription: x\n---\nDo it.\n")
    broken = discover_skills(root)

    assert again is first and changed.description == "Lints the code, twice."
    assert broken.skills == {} and broken.invalid  # the new name no longer matches its folder

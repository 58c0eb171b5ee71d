"""A session's share of the skills: enabled, exclude, filter, and the bounded system-prompt section."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config.loader import load_skill_options
from engine.instructions import InstructionContext, build_instructions
from engine.skills.discovery import discover_skills
from engine.skills.model import SkillCatalog, SkillRoot
from engine.skills.options import DEFAULT_MAX_METADATA_CHARACTERS, SkillOptions
from engine.skills.selection import SECTION_HEADER, SkillInstructions, open_skills, select_skills
from tests.support.trust import trust


@pytest.fixture
def catalog(tmp_path: Path) -> SkillCatalog:
    root = tmp_path / "skills"
    for name, description in [
        ("alpha", "First & <best> skill."),
        ("beta", "B" * 300),
        ("gamma", "Third skill."),
    ]:
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n")
    return discover_skills([SkillRoot(root, "project")])


def test_every_skill_is_listed_by_default_with_name_and_escaped_description(catalog: SkillCatalog) -> None:
    chosen = select_skills(catalog, SkillOptions())
    assert [skill.name for skill in chosen.listed] == ["alpha", "beta", "gamma"]
    assert chosen.section is not None and chosen.section.startswith(SECTION_HEADER)
    assert "<skill>\n<name>alpha</name>\n<description>First &amp; &lt;best&gt; skill.</description>\n</skill>" in (
        chosen.section
    )
    context = InstructionContext(cwd=Path.cwd())
    assert SkillInstructions(chosen).contribute(context) == chosen.section
    assert build_instructions(Path.cwd(), [SkillInstructions(chosen)]).endswith("</available_skills>")


def test_enabled_names_narrow_the_set_and_unknown_names_are_reported(catalog: SkillCatalog) -> None:
    chosen = select_skills(catalog, SkillOptions(enabled=("gamma", "alpha", "missing")))
    assert list(chosen.active) == ["alpha", "gamma"]
    assert chosen.not_found == ("missing",)
    assert [skill.name for skill in chosen.disabled] == ["beta"]
    assert chosen.status_of(catalog.skills["beta"]) == "disabled"


def test_exclude_and_a_filter_callable_narrow_the_set(catalog: SkillCatalog) -> None:
    chosen = select_skills(catalog, SkillOptions(exclude=("alpha",), filter=lambda skill: skill.name != "gamma"))
    assert list(chosen.active) == ["beta"]


def test_skills_that_do_not_fit_the_budget_are_dropped_and_counted_but_stay_loadable(catalog: SkillCatalog) -> None:
    everything = select_skills(catalog, SkillOptions())
    assert everything.section is not None
    budget = len(everything.section) - 100
    chosen = select_skills(catalog, SkillOptions(max_metadata_characters=budget))
    assert [skill.name for skill in chosen.listed] == ["alpha", "gamma"]
    assert [skill.name for skill in chosen.dropped] == ["beta"]
    assert chosen.section is not None and len(chosen.section) <= budget
    assert chosen.section.endswith("1 more skill not listed here for space; load_skill loads them by name: beta.")
    assert "beta" in chosen.active and chosen.status_of(catalog.skills["beta"]) == "dropped"


def test_without_skills_there_is_no_section(tmp_path: Path) -> None:
    chosen = select_skills(discover_skills([SkillRoot(tmp_path / "none", "p")]), SkillOptions())
    assert chosen.section is None and chosen.active == {}


def test_the_settings_files_skills_section_becomes_options_project_first(tmp_path: Path, isolated_hive: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "settings.yaml").write_text(
        "skills:\n  enabled: [a]\n  roots: [shared-skills]\n  max_metadata_characters: 0\n"
    )
    (isolated_hive / "config").mkdir()
    (isolated_hive / "config" / "settings.yaml").write_text(
        "skills:\n  enabled: [b]\n  exclude: [c]\n  unknown_fields: accept\n  bundled: false\n  roots: [mine]\n"
    )
    trust(tmp_path)
    options = load_skill_options(tmp_path)
    assert options == SkillOptions(
        enabled=("a",),
        exclude=("c",),
        unknown_fields="accept",
        max_metadata_characters=0,
        extra_roots=(tmp_path / "shared-skills", isolated_hive / "config" / "mine"),
        include_bundled=False,
    )
    assert load_skill_options(tmp_path / "x").max_metadata_characters == 0
    assert SkillOptions().max_metadata_characters == DEFAULT_MAX_METADATA_CHARACTERS


def test_open_skills_is_a_plain_call_that_needs_no_session(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    skill = tmp_path / ".agents" / "skills" / "local"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: local\ndescription: A local skill.\n---\n")
    chosen = open_skills(tmp_path)
    assert chosen.catalog.skills["local"].root.label == "project-agents"
    assert {"local", "review-diff", "write-tests", "commit-message"} <= set(chosen.active)
    assert open_skills(tmp_path, SkillOptions(include_bundled=False)).active.keys() == {"local"}

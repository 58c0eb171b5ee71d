"""load_skill returns a skill's instructions or one of its files, and never anything outside its folder."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine.skills.discovery import discover_skills
from engine.skills.model import SkillRoot
from engine.skills.options import SkillOptions
from engine.skills.selection import SkillSelection, select_skills
from engine.skills.tool import LoadSkillTool
from engine.tools.base import ToolContext, ToolResult


@pytest.fixture
def skills_root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    skill = root / "pdf-tools"
    (skill / "references").mkdir(parents=True)
    (skill / "scripts").mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: pdf-tools\ndescription: Work with PDF files.\nallowed-tools: Bash(pdftotext:*) Read\n---\n\n"
        "# PDF tools\n\nSee references/guide.md. Never run scripts/extract.sh blindly.\n"
    )
    (skill / "references" / "guide.md").write_text("The guide.\n")
    (skill / "scripts" / "extract.sh").write_text("#!/bin/sh\ntouch pwned\n")
    (skill / "scripts" / "extract.sh").chmod(0o755)
    (skill / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    (root / "other").mkdir()
    (root / "other" / "SKILL.md").write_text("---\nname: other\ndescription: Another skill.\n---\nOther body\n")
    (tmp_path / "outside.txt").write_text("secret outside the skill")
    (skill / "escape").symlink_to(tmp_path / "outside.txt")
    (skill / "escape-dir").symlink_to(tmp_path)
    return root


def selection(root: Path, **options: object) -> SkillSelection:
    return select_skills(discover_skills([SkillRoot(root, "project")]), SkillOptions(**options))  # type: ignore[arg-type]


def load(selection: SkillSelection, tmp_path: Path, **arguments: str) -> ToolResult:
    ctx = ToolContext(cwd=tmp_path, data_dir=tmp_path / "data")
    return asyncio.run(LoadSkillTool(selection).run(dict(arguments), ctx))


def test_the_tool_is_read_only_and_shown_to_the_model_as_load_skill(skills_root: Path) -> None:
    spec = LoadSkillTool(selection(skills_root)).spec
    assert spec.name == "load_skill" and spec.read_only
    assert spec.parameters["required"] == ["name"] and set(spec.parameters["properties"]) == {"name", "path"}


def test_without_a_path_it_returns_the_body_the_folder_and_the_files(skills_root: Path, tmp_path: Path) -> None:
    result = load(selection(skills_root), tmp_path, name="pdf-tools")
    assert result.success is True
    assert result.output.startswith('<skill_content name="pdf-tools">\nSkill folder: ')
    assert "# PDF tools\n\nSee references/guide.md." in result.output
    assert "description:" not in result.output
    assert "allowed-tools (for information; not enforced): Bash(pdftotext:*) Read" in result.output
    assert "references/guide.md\nscripts/extract.sh" in result.output
    assert not (tmp_path / "pwned").exists()


def test_a_path_returns_that_file_of_the_skill(skills_root: Path, tmp_path: Path) -> None:
    result = load(selection(skills_root), tmp_path, name="pdf-tools", path="references/guide.md")
    assert (result.success, result.output) == (True, "The guide.\n")
    script = load(selection(skills_root), tmp_path, name="pdf-tools", path="scripts/extract.sh")
    assert script.output == "#!/bin/sh\ntouch pwned\n"
    assert not (tmp_path / "pwned").exists()
    folder = load(selection(skills_root), tmp_path, name="pdf-tools", path="references")
    assert folder.success is True and "references/guide.md" in folder.output


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../other/SKILL.md", "'..' is not allowed"),
        ("references/../../other/SKILL.md", "'..' is not allowed"),
        ("/etc/passwd", "absolute paths are not allowed"),
        ("~/.ssh/id_rsa", "absolute paths are not allowed"),
        ("escape", "it leads outside the skill's folder"),
        ("escape-dir/outside.txt", "it leads outside the skill's folder"),
    ],
)
def test_paths_leading_out_of_the_skill_folder_are_refused(
    skills_root: Path, tmp_path: Path, path: str, reason: str
) -> None:
    result = load(selection(skills_root), tmp_path, name="pdf-tools", path=path)
    assert result.success is False
    assert reason in result.output and "secret" not in result.output


def test_missing_binary_unknown_and_disabled_are_plain_errors(skills_root: Path, tmp_path: Path) -> None:
    everything = selection(skills_root)
    missing = load(everything, tmp_path, name="pdf-tools", path="references/nope.md")
    assert missing.success is False and "has no file 'references/nope.md'" in missing.output
    binary = load(everything, tmp_path, name="pdf-tools", path="logo.png")
    assert binary.success is False and "binary file" in binary.output
    unknown = load(everything, tmp_path, name="nope")
    assert unknown.output == "No skill named 'nope'. Available skills: other, pdf-tools."
    narrowed = selection(skills_root, exclude=("other",))
    assert load(narrowed, tmp_path, name="other").output == "The skill 'other' is disabled in this session."


def test_a_skill_dropped_from_the_prompt_for_space_still_loads(skills_root: Path, tmp_path: Path) -> None:
    tight = selection(skills_root, max_metadata_characters=0)
    assert tight.listed == () and len(tight.dropped) == 2 and tight.section is None
    assert load(tight, tmp_path, name="other").output.endswith("Other body\n</skill_content>")

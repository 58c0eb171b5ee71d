"""Search and load_skill results leave out what the read rules keep back, judged on the files behind each entry."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from engine.events import ToolCall
from engine.policy.compose import guarded_toolset
from engine.policy.config import default_permissions
from engine.policy.modes import ModeManager
from engine.policy.permissions import PermissionPolicy
from engine.policy.subjects import SKILL_FILE_PROBE
from engine.skills.discovery import discover_skills
from engine.skills.model import SkillRoot
from engine.skills.options import SkillOptions
from engine.skills.selection import select_skills
from engine.skills.tool import LoadSkillTool
from engine.tools.base import Tool, ToolContext, ToolResult, ToolSpec
from engine.tools.registry import ToolRegistry
from engine.tools.ripgrep import RipgrepBackend, find_ripgrep
from engine.tools.search import GlobFilesTool, GrepFilesTool
from engine.tools.search_backend import PythonSearchBackend, SearchBackend


def _backends() -> list[SearchBackend]:
    executable = find_ripgrep()
    assert executable, "ripgrep is a development dependency"
    return [RipgrepBackend(executable), PythonSearchBackend()]


def run(tools: Sequence[Tool], ctx: ToolContext, tool: str, **arguments: Any) -> ToolResult:
    toolset = guarded_toolset(ToolRegistry(list(tools)), default_permissions(), None, ModeManager())
    return asyncio.run(toolset.call(ToolCall(id="c", name=tool, arguments=arguments), ctx))


@pytest.mark.parametrize("backend", _backends(), ids=lambda b: b.name)
def test_a_folder_named_like_a_grep_line_does_not_smuggle_a_secret_out(
    backend: SearchBackend, project: Path, ctx: ToolContext
) -> None:
    for folder in ("cfg:1:", "x:2:y"):
        (project / folder / "secrets").mkdir(parents=True)
        (project / folder / "secrets" / "token.txt").write_text("hunter2 in a folder\n")
        (project / folder / ".env").write_text("TOKEN=hunter2\n")
    grep = run([GrepFilesTool(backend)], ctx, "grep_files", pattern="hunter2|app")
    assert "src/app.py:1:print('app')" in grep.output
    assert "hunter2" not in grep.output
    assert "5 result lines left out" in grep.output, grep.output
    assert "(1 matching line in 1 file)" in grep.output, "the counts say nothing about the files left out"
    globbed = run([GlobFilesTool(backend)], ctx, "glob_files", pattern="**/*")
    assert "token.txt" not in globbed.output and ".env" not in globbed.output
    assert "cfg:1:" not in globbed.output.replace("left out", "")


@pytest.mark.parametrize("backend", _backends(), ids=lambda b: b.name)
def test_a_file_name_with_a_newline_is_one_entry(backend: SearchBackend, project: Path, ctx: ToolContext) -> None:
    (project / "secrets" / "a\nsrc").mkdir()
    (project / "secrets" / "a\nsrc" / "app.py:1:x").write_text("hunter2\n")
    grep = run([GrepFilesTool(backend)], ctx, "grep_files", pattern="hunter2")
    assert "hunter2" not in grep.output and "result lines left out" in grep.output


class PlainGrep:
    """A grep_files tool that answers in text only, without saying which files it shows."""

    spec = ToolSpec(name="grep_files", description="", parameters={}, read_only=True)

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult("secrets/key.txt:1:hunter2")


def test_a_search_result_that_does_not_say_which_files_it_shows_is_withheld(ctx: ToolContext) -> None:
    result = run([PlainGrep()], ctx, "grep_files", pattern="x")
    assert result.success is False and "hunter2" not in result.output
    assert "does not say which files it shows" in result.output


@pytest.fixture
def skill_tool(project: Path, tmp_path: Path) -> LoadSkillTool:
    inside = project / ".ironhive" / "skills" / "deploy"
    outside = tmp_path / "user-skills" / "notes"
    for folder, name in ((inside, "deploy"), (outside, "notes")):
        (folder / "references").mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: A skill.\n---\nThe {name} body.\n")
        (folder / "references" / "guide.md").write_text(f"the {name} guide\n")
        (folder / "references" / ".env").write_text("TOKEN=hunter2\n")
        (folder / "references" / "id_rsa").write_text("-----BEGIN hunter2-----\n")
        (folder / "references" / "server.PEM").write_text("hunter2 certificate\n")
    roots = [SkillRoot(project / ".ironhive" / "skills", "project"), SkillRoot(tmp_path / "user-skills", "user")]
    return LoadSkillTool(select_skills(discover_skills(roots), SkillOptions()))


@pytest.mark.parametrize("skill", ["deploy", "notes"], ids=["in-the-project", "user-root-outside"])
def test_load_skill_shows_what_the_read_rules_allow_and_keeps_secrets_back(
    skill_tool: LoadSkillTool, ctx: ToolContext, skill: str
) -> None:
    instructions = run([skill_tool], ctx, "load_skill", name=skill)
    assert f"The {skill} body." in instructions.output
    guide = run([skill_tool], ctx, "load_skill", name=skill, path="references/guide.md")
    assert guide.output == f"the {skill} guide\n"
    for secret in ("references/.env", "references/id_rsa", "references/server.PEM"):
        result = run([skill_tool], ctx, "load_skill", name=skill, path=secret)
        assert "hunter2" not in result.output, secret
        assert "is not shown" in result.output and "1 result line left out" in result.output


def test_load_skill_of_a_skill_inside_a_denied_folder_is_kept_back(project: Path, ctx: ToolContext) -> None:
    folder = project / "secrets" / "skills" / "vault"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: vault\ndescription: A skill.\n---\nhunter2 lives here.\n")
    tool = LoadSkillTool(
        select_skills(discover_skills([SkillRoot(project / "secrets" / "skills", "project")]), SkillOptions())
    )
    result = run([tool], ctx, "load_skill", name="vault")
    assert "hunter2" not in result.output and "is not shown" in result.output


SKILL_SECRETS = (
    ".env.production",
    "secrets/token.txt",
    "secrets.yaml",
    ".dev.vars",
    "service-account-ci.json",
    "kubeconfig",
    "credentials.json",
    "deploy/terraform.tfstate",
    "keys/tls.key",
)


@pytest.mark.parametrize("where", ["in-the-project", "user-root-outside"])
def test_load_skill_judges_the_files_of_the_one_secret_list_as_read_file_does(
    project: Path, tmp_path: Path, ctx: ToolContext, where: str
) -> None:
    root = project / ".ironhive" / "skills" if where == "in-the-project" else tmp_path / "user-skills"
    folder = root / "ops"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: ops\ndescription: A skill.\n---\nThe ops body.\n")
    for relative in SKILL_SECRETS:
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(f"hunter2 in {relative}\n")
    tool = LoadSkillTool(select_skills(discover_skills([SkillRoot(root, "user")]), SkillOptions()))
    policy = PermissionPolicy(default_permissions())
    for relative in SKILL_SECRETS:
        result = run([tool], ctx, "load_skill", name="ops", path=relative)
        assert "hunter2" not in result.output and "is not shown" in result.output, relative
        probe = ToolCall(id="p", name=SKILL_FILE_PROBE, arguments={"path": str(folder / relative)})
        read = ToolCall(id="r", name="read_file", arguments={"path": str(folder / relative)})
        verdict = policy.judge_call(probe, ctx).verdict
        assert verdict in ("ask", "deny"), relative
        if where == "in-the-project":
            assert verdict == policy.judge_call(read, ctx).verdict, relative

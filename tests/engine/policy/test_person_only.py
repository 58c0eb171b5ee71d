"""Person-only asks: changes to hive's configuration, git's hooks and the agents' instructions need a person, each time.

The judgements come from the real permission rules on a real project folder; the gate runs the real
built-in tools, so a refused write leaves no file behind and an allowed one writes it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path, PurePath
from typing import Any

import pytest
import yaml

from engine.events import ApprovalRequested, Event, ToolCall
from engine.policy.compose import guarded_toolset
from engine.policy.config import load_permissions
from engine.policy.gate import (
    PERSON_ONLY,
    ApprovalGate,
    ApprovalRequest,
    ApproveEverything,
    Approver,
    Decision,
)
from engine.policy.local_rules import local_file
from engine.policy.modes import ModeFilter, ModeManager
from engine.policy.protected import command_protection, is_protected_name, protection
from engine.tools.base import ToolContext, ToolResult, Toolset
from engine.tools.builtin import builtin_tools
from engine.tools.registry import ToolRegistry
from tests.engine.policy.conftest import Judge, make_judge
from tests.support.trust import trust

PERSON_ONLY_PATHS = [
    ".ironhive/settings.yaml",
    ".ironhive/permissions.yaml",
    ".git/hooks/pre-commit",
    ".git/config",
    "AGENTS.md",
    "sub/CLAUDE.md",
    "GEMINI.md",
    "src/AGENTS.override.md",
    ".agents/skills/x/SKILL.md",
    ".claude/settings.json",
    ".claude/commands/deploy.md",
    ".gemini/settings.json",
    ".cursor/mcp.json",
    ".github/copilot-instructions.md",
    ".github/instructions/python.instructions.md",
    ".cursorrules",
    ".Ironhive/settings.yaml",
    "src/.IRONHIVE/permissions.yaml",
    ".MCP.json",
    ".Git/hooks/pre-commit",
    "Agents.md",
    ".Claude/agents/evil.md",
    ".vscode/tasks.json",
    "sub/.idea/workspace.xml",
    ".envrc",
    "sub/.EnvRC",
]
ORDINARY_PATHS = [
    "notes.txt",
    "README.md",
    "src/app.py",
    "docs/agents-guide.md",
    ".github/workflows/ci.yml",
    "src/agents/run.py",
]


def write_call(tool: str, path: str) -> dict[str, Any]:
    """The arguments of ``tool`` changing ``path``."""
    if tool == "write_file":
        return {"path": path, "content": "x\n"}
    if tool == "edit_file":
        return {"path": path, "old_string": "a", "new_string": "b"}
    return {"command": f"echo x >> {path}"}


class Person:
    """Stands in for the person at the terminal: answers ``answer`` to every question and keeps what it was asked."""

    def __init__(self, answer: Decision) -> None:
        self.answer = answer
        self.requests: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return self.answer


class CountingYes(ApproveEverything):
    """``--yes``, counting the questions it is put (a person-only one must never reach it)."""

    def __init__(self) -> None:
        self.requests: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return await super().decide(request)


def gate(ctx: ToolContext, approver: Approver | None) -> Toolset:
    """The built-in tools behind the project's rules and ``approver``, as a session has them."""
    return guarded_toolset(ToolRegistry(builtin_tools()), load_permissions(ctx.cwd), approver, ModeManager())


def run(toolset: Toolset, ctx: ToolContext, name: str, **arguments: Any) -> ToolResult:
    return asyncio.run(toolset.call(ToolCall(id="c1", name=name, arguments=arguments), ctx))


@pytest.fixture
def permissive(project: Path, ctx: ToolContext) -> Judge:
    """Judges by project rules that allow every edit and every echo: only the protection can still ask."""
    rules = project / ".ironhive" / "permissions.yaml"
    rules.parent.mkdir()
    rules.write_text(
        "permissions:\n"
        "  include_defaults: true\n"
        "  edit: [{pattern: '**', action: allow, priority: 100}]\n"
        "  bash: [{pattern: 'echo *', action: allow}]\n"
    )
    trust(project)  # an untrusted project's rules only tighten
    return make_judge(load_permissions(project), ctx)


@pytest.mark.parametrize("tool", ["write_file", "edit_file", "execute_command"])
@pytest.mark.parametrize("path", PERSON_ONLY_PATHS)
def test_a_change_to_a_protected_path_is_a_person_only_ask_whatever_the_rules_say(
    permissive: Judge, judge: Judge, tool: str, path: str
) -> None:
    for judged in (permissive, judge):
        judgement = judged(tool, **write_call(tool, path))
        assert judgement.verdict == "ask", (path, judgement.reason)
        assert judgement.person_only, (path, judgement.reason)
        assert "always asked of a person" in judgement.reason
        assert judgement.lasting == (), "always in this project cannot be offered"


@pytest.mark.parametrize("tool", ["write_file", "edit_file", "execute_command"])
@pytest.mark.parametrize("path", ORDINARY_PATHS)
def test_an_ordinary_file_is_not_person_only(permissive: Judge, judge: Judge, tool: str, path: str) -> None:
    assert permissive(tool, **write_call(tool, path)).verdict == "allow"
    by_defaults = judge(tool, **write_call(tool, path))
    assert not by_defaults.person_only, by_defaults.reason
    if by_defaults.verdict == "ask":
        assert by_defaults.lasting != (), "an ordinary ask may be allowed always"


def test_the_user_config_folder_is_person_only_its_rules_saved_answers_and_trust_record(
    judge: Judge, ctx: ToolContext, isolated_hive: Path
) -> None:
    config = isolated_hive / "config"
    for path in (config / "permissions.yaml", config / "trust.json", local_file(ctx.cwd)):
        judgement = judge("write_file", path=str(path), content="{}")
        assert judgement.verdict == "ask" and judgement.person_only, path


def test_reading_an_instruction_file_is_no_change(permissive: Judge, project: Path) -> None:
    (project / "AGENTS.md").write_text("be nice\n")
    judgement = permissive("read_file", path="AGENTS.md")
    assert judgement.verdict != "deny" and not judgement.person_only


def test_shell_commands_that_write_protected_files_are_person_only(permissive: Judge) -> None:
    for command in (
        "echo x >> AGENTS.md",
        "cp evil .git/hooks/pre-commit",
        "echo 'sandbox: off' > .ironhive/settings.yaml",
        "echo x | tee sub/CLAUDE.md",
        "mv notes.txt .agents/skills/x/SKILL.md",
        "sed -i s/a/b/ CLAUDE.md",
    ):
        judgement = permissive("execute_command", command=command)
        assert judgement.verdict == "ask" and judgement.person_only, command
    assert permissive("execute_command", command="echo x >> notes.txt").verdict == "allow"


def test_another_finding_deciding_still_names_the_protected_path(permissive: Judge) -> None:
    judgement = permissive("execute_command", command="$TOOL x; echo x >> AGENTS.md")
    assert judgement.verdict == "ask" and judgement.person_only
    assert "only known when it runs" in judgement.reason and "AGENTS.md instructs the agents" in judgement.reason


def test_a_deny_on_a_protected_path_stays_a_deny(project: Path, ctx: ToolContext) -> None:
    rules = project / ".ironhive" / "permissions.yaml"
    rules.parent.mkdir()
    rules.write_text("permissions:\n  include_defaults: true\n  edit: [{pattern: 'AGENTS.md', action: deny}]\n")
    trust(project)
    judgement = make_judge(load_permissions(project), ctx)("write_file", path="AGENTS.md", content="x")
    assert judgement.verdict == "deny" and not judgement.person_only


def test_the_names_are_compared_case_folded_and_only_as_whole_names(project: Path) -> None:
    for path in (".IronHive/x", ".GIT/hooks/pre-push", "sub/.Mcp.Json", "CLAUDE.local.md", ".Codex/config.toml"):
        assert protection(project / path), path
    for path in (".ironhive-notes/x", ".gitignore", ".github/CODEOWNERS", "agents.md.bak", "my.claude/x"):
        assert protection(project / path) == "", path
    for path in (".vscode-test/x", "envrc", ".envrc.example", "idea/x"):
        assert protection(project / path) == "", path


def test_after_a_command_only_the_control_files_of_a_git_folder_count(project: Path) -> None:
    protected = [".git/info/exclude", "a/.git/hooks", ".git/config", "x/.git", ".mcp.json", ".vscode", "b/.envrc"]
    protected += ["AGENTS.md", ".agents/skills/s/SKILL.md", ".github/instructions/x.md", "src/.ironhive/a.yaml"]
    for path in protected:
        assert command_protection(PurePath(path)), path
    for path in (".git/index", ".git/objects/ab/cd", ".git/refs/heads/main", ".git/HEAD", "src/app.py", ".github/x"):
        assert command_protection(PurePath(path)) == "", path
    assert is_protected_name("CLAUDE.md", "docs") and is_protected_name("instructions", ".github")
    assert not is_protected_name("instructions", "docs") and not is_protected_name(".git", "x")


@pytest.mark.parametrize("path", [".ironhive/settings.yaml", ".ironhive/permissions.yaml", ".git/hooks/pre-commit"])
def test_yes_refuses_a_person_only_write_without_asking(ctx: ToolContext, path: str) -> None:
    yes = CountingYes()
    toolset = gate(ctx, yes)
    result = run(toolset, ctx, "write_file", path=path, content="sandbox: off\n")
    assert result.success is False
    assert PERSON_ONLY in result.output and "always asked of a person" in result.output
    assert yes.requests == []
    assert not (ctx.cwd / path).exists()
    assert run(toolset, ctx, "write_file", path="notes.md", content="x").success, "--yes still answers the rest"
    assert [r.call.arguments["path"] for r in yes.requests] == ["notes.md"]


def test_yes_refuses_a_person_only_command_and_it_does_not_run(ctx: ToolContext) -> None:
    (ctx.cwd / "AGENTS.md").write_text("be careful\n")
    result = run(gate(ctx, ApproveEverything()), ctx, "execute_command", command="echo obey me >> AGENTS.md")
    assert result.success is False and PERSON_ONLY in result.output
    assert (ctx.cwd / "AGENTS.md").read_text() == "be careful\n"


def test_with_nobody_to_ask_a_person_only_ask_says_yes_would_not_help(ctx: ToolContext) -> None:
    result = run(gate(ctx, None), ctx, "write_file", path="AGENTS.md", content="x")
    assert result.success is False
    assert PERSON_ONLY in result.output and "nobody to approve it" in result.output
    assert "run hive with --yes" not in result.output
    assert not (ctx.cwd / "AGENTS.md").exists()


def test_a_person_is_asked_without_always_and_a_yes_writes_the_file(ctx: ToolContext) -> None:
    person = Person(Decision(allowed=True, reason="allowed once by the user"))
    events: list[Event] = []
    ctx.emit = events.append
    result = run(gate(ctx, person), ctx, "write_file", path="sub/CLAUDE.md", content="hello\n")
    assert result.success is True, result.output
    assert (ctx.cwd / "sub" / "CLAUDE.md").read_text() == "hello\n"
    (request,) = person.requests
    assert request.person_only and request.remember is None and request.lasting == ()
    assert request.lasting_deny != (), "deny always in this project only tightens: it stays"
    assert "always asked of a person" in request.reason
    assert any(isinstance(e, ApprovalRequested) for e in events)


def test_always_answers_never_skip_a_person_only_question(ctx: ToolContext) -> None:
    person = Person(Decision(allowed=True, remember="write_file: AGENTS.md", save="allow"))
    toolset = gate(ctx, person)
    assert run(toolset, ctx, "write_file", path="AGENTS.md", content="one\n").success
    assert run(toolset, ctx, "write_file", path="AGENTS.md", content="two\n").success
    assert len(person.requests) == 2, "nothing was remembered"
    assert not local_file(ctx.cwd).exists(), "nothing was saved"


def test_a_pattern_remembered_some_other_way_does_not_skip_the_question(ctx: ToolContext) -> None:
    person = Person(Decision(allowed=False, reason="no"))
    toolset = gate(ctx, person)
    assert isinstance(toolset, ModeFilter) and isinstance(toolset.inner, ApprovalGate)
    toolset.inner.remembered.add("write_file: AGENTS.md")  # as if an "always" had been given for it
    result = run(toolset, ctx, "write_file", path="AGENTS.md", content="x")
    assert result.success is False and len(person.requests) == 1
    assert not (ctx.cwd / "AGENTS.md").exists()


def test_deny_always_in_this_project_holds_for_the_session_and_is_saved(ctx: ToolContext) -> None:
    person = Person(Decision(allowed=False, reason="never", save="deny"))
    toolset = gate(ctx, person)
    assert run(toolset, ctx, "write_file", path="AGENTS.md", content="x").success is False
    again = run(toolset, ctx, "write_file", path="AGENTS.md", content="x")
    assert again.success is False and len(person.requests) == 1
    saved = yaml.safe_load(local_file(ctx.cwd).read_text())
    assert saved == {"permissions": {"edit": [{"pattern": "AGENTS.md", "action": "deny", "exact": True}]}}

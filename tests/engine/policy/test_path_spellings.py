"""Every spelling of one file gets one answer: paths are judged as the tools will open them."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.policy.config import default_permissions, load_permissions
from engine.tools.base import ToolContext
from tests.engine.policy.conftest import make_judge

TARGETS = [
    "src/app.py",
    "src/pkg/mod.py",
    "src/new_file.py",
    "secrets/key.txt",
    "config/secrets/db.txt",
    ".env",
    "config/.env.local",
    "package.json",
    "README.md",
    "x.txt",
]
ALIASES = {"secrets": "src/link_to_secrets"}
"""Directories reachable another way (through a symbolic link)."""

Spelling = st.lists(st.sampled_from(["dot", "detour", "double-slash", "missing-detour"]), max_size=4)


def spell(target: str, project: Path, anchor: str, steps: list[str], use_alias: bool) -> str:
    """One way of writing ``target``: anchored relative, absolute or at ``~``, with detours that resolve away."""
    parts = target.split("/")
    if use_alias and parts[0] in ALIASES:
        parts = ALIASES[parts[0]].split("/") + parts[1:]
    for index, step in enumerate(steps):
        at = index % len(parts)
        if step == "dot":
            parts.insert(at, ".")
        elif step == "detour":
            parts.insert(at, "src/pkg/../..")
        elif step == "missing-detour":
            parts.insert(at, "no-such-dir/..")
        elif 0 < at < len(parts):
            parts.insert(at, "")
    relative = "/".join(parts)
    if anchor == "absolute":
        return f"{project}/{relative}"
    if anchor == "home":
        return f"~/{project.name}/{relative}"
    if anchor == "parent":
        return f"../{project.name}/{relative}"
    return relative


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    target=st.sampled_from(TARGETS),
    anchor=st.sampled_from(["relative", "absolute", "home", "parent"]),
    steps=Spelling,
    use_alias=st.booleans(),
    tool=st.sampled_from(["read_file", "write_file", "edit_file"]),
)
def test_every_spelling_of_a_path_gets_the_verdict_of_its_plain_form(
    ctx: ToolContext, project: Path, target: str, anchor: str, steps: list[str], use_alias: bool, tool: str
) -> None:
    judge = make_judge(default_permissions(), ctx)
    spelled = spell(target, project, anchor, steps, use_alias)
    assert judge(tool, path=spelled).verdict == judge(tool, path=target).verdict, spelled


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target=st.sampled_from(TARGETS), anchor=st.sampled_from(["relative", "absolute", "home"]), steps=Spelling)
def test_spellings_agree_under_a_project_rules_file_too(
    ctx: ToolContext, project: Path, target: str, anchor: str, steps: list[str]
) -> None:
    rules = project / ".ironhive" / "permissions.yaml"
    if not rules.exists():
        rules.parent.mkdir(exist_ok=True)
        rules.write_text(
            "permissions:\n"
            "  read:\n"
            "    - {pattern: '**', action: allow}\n"
            "    - {pattern: 'src/pkg/**', action: deny, priority: 5}\n"
            "  edit:\n"
            "    - {pattern: '*.md', action: allow}\n"
            "    - {pattern: 'config/**', action: deny}\n"
        )
    judge = make_judge(load_permissions(project), ctx)
    spelled = spell(target, project, anchor, steps, use_alias=False)
    for tool in ("read_file", "write_file"):
        assert judge(tool, path=spelled).verdict == judge(tool, path=target).verdict, spelled


def test_a_symbolic_link_is_judged_by_where_it_leads(ctx: ToolContext, project: Path) -> None:
    judge = make_judge(default_permissions(), ctx)
    assert judge("read_file", path="src/link_to_secrets/key.txt").verdict == "deny"
    assert judge("read_file", path="notes.txt").verdict == "deny"
    escaped = judge("write_file", path="src/outside/evil.py", content="x")
    assert escaped.verdict == "ask"
    assert str(project.parent / "outside" / "evil.py") in escaped.reason


def test_a_link_created_after_the_rules_loaded_is_still_followed(ctx: ToolContext, project: Path) -> None:
    judge = make_judge(default_permissions(), ctx)
    assert judge("read_file", path="src/later/key.txt").verdict == "allow"
    (project / "src" / "later").symlink_to(project / "secrets", target_is_directory=True)
    assert judge("read_file", path="src/later/key.txt").verdict == "deny"

"""A server's read-only claim (``readOnlyHint``) counts only through the person's ``mcp_read_only``, and an
untrusted project's server's claim counts for less: it never lets a call run unasked."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.paths import user_config_dir
from engine.policy.config import load_permissions
from engine.policy.rules import Action
from engine.tools.base import ToolContext, ToolSpec
from engine.workspace import open_workspace
from tests.engine.policy.conftest import make_judge


def verdict(project: Path, ctx: ToolContext, *, read_only: bool, untrusted: bool) -> str:
    spec = ToolSpec(
        name="mcp__docs__get_env", description="", parameters={}, kind="mcp", source="docs",
        read_only=read_only, untrusted_claims=untrusted,
    )  # fmt: skip
    return make_judge(load_permissions(open_workspace(project)), ctx, spec)("mcp__docs__get_env").verdict


@pytest.mark.parametrize(
    ("mcp_read_only", "ours", "projects"),
    [("allow", "allow", "ask"), ("ask", "ask", "ask"), ("deny", "deny", "deny")],
)
def test_an_untrusted_projects_read_only_claim_is_asked_where_the_persons_would_run(
    mcp_read_only: Action, ours: str, projects: str, project: Path, ctx: ToolContext
) -> None:
    user_config_dir().mkdir(parents=True, exist_ok=True)
    rules = f"permissions:\n  include_defaults: true\n  mcp_read_only: {mcp_read_only}\n"
    (user_config_dir() / "permissions.yaml").write_text(rules)

    assert verdict(project, ctx, read_only=True, untrusted=False) == ours
    assert verdict(project, ctx, read_only=True, untrusted=True) == projects
    assert verdict(project, ctx, read_only=False, untrusted=True) == "ask"  # no claim: the default action


def test_the_reason_says_why_the_claim_did_not_count(project: Path, ctx: ToolContext) -> None:
    user_config_dir().mkdir(parents=True, exist_ok=True)
    (user_config_dir() / "permissions.yaml").write_text(
        "permissions:\n  include_defaults: true\n  mcp_read_only: allow\n"
    )
    spec = ToolSpec(
        name="mcp__docs__get_env", description="", parameters={}, kind="mcp", read_only=True, untrusted_claims=True
    )
    judgement = make_judge(load_permissions(open_workspace(project)), ctx, spec)("mcp__docs__get_env")
    assert judgement.verdict == "ask"
    assert "read-only and mcp_read_only is allow, but the server is the project's and the project is not trusted" in (
        judgement.reason
    )

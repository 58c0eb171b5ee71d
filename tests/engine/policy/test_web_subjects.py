"""The web tools under the permission rules: fetches judged by domain, searches by name, both offered in plan mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.events import ToolCall
from engine.policy.config import load_permissions
from engine.policy.modes import is_read_only
from engine.policy.permissions import PermissionPolicy
from engine.tools.base import ToolContext
from engine.tools.builtin import builtin_tools


def judge(tmp_path: Path, name: str, **arguments: str) -> tuple[str, str | None, tuple[str, ...]]:
    policy = PermissionPolicy(load_permissions(tmp_path))
    call = ToolCall(id="c", name=name, arguments=dict(arguments))
    judged = policy.judge_call(call, ToolContext(cwd=tmp_path, data_dir=tmp_path))
    return judged.verdict, judged.remember, tuple(rule.describe() for rule in judged.lasting)


def write_rules(tmp_path: Path, rules: str) -> None:
    (tmp_path / ".ironhive").mkdir(exist_ok=True)
    (tmp_path / ".ironhive" / "permissions.yaml").write_text(f"permissions:\n  include_defaults: true\n{rules}")
    from tests.support.trust import trust

    trust(tmp_path)


def test_a_fetch_is_asked_per_domain_and_always_remembers_exactly_that_domain(tmp_path: Path) -> None:
    verdict, remember, lasting = judge(tmp_path, "web_fetch", url="https://Docs.Python.org./3/library/")
    assert (verdict, remember, lasting) == ("ask", "web_fetch: docs.python.org", ("tools: web_fetch: docs.python.org",))
    assert judge(tmp_path, "web_search", query="x")[:2] == ("ask", "web_search")


def test_rules_allow_and_deny_domains_by_pattern(tmp_path: Path) -> None:
    write_rules(
        tmp_path,
        "  tools:\n"
        "    - {pattern: 'web_fetch: *.python.org', action: allow}\n"
        "    - {pattern: 'web_fetch: evil.example', action: deny}\n"
        "    - {pattern: web_search, action: allow}\n",
    )
    assert judge(tmp_path, "web_fetch", url="https://docs.python.org/3/")[0] == "allow"
    assert judge(tmp_path, "web_fetch", url="https://pypi.python.org.evil.example/")[0] == "ask"
    assert judge(tmp_path, "web_fetch", url="http://evil.example/x")[0] == "deny"
    assert judge(tmp_path, "web_search", query="x")[0] == "allow"


def test_a_rule_naming_the_tool_alone_denies_every_fetch_but_does_not_allow_them(tmp_path: Path) -> None:
    write_rules(tmp_path, "  tools:\n    - {pattern: web_fetch, action: allow}\n")
    assert judge(tmp_path, "web_fetch", url="https://docs.python.org/")[0] == "ask"
    write_rules(tmp_path, "  tools:\n    - {pattern: web_fetch, action: deny}\n")
    assert judge(tmp_path, "web_fetch", url="https://docs.python.org/")[0] == "deny"


@pytest.mark.parametrize("url", ["ftp://example.org/", "not a url", "https:///path"])
def test_a_url_that_cannot_be_fetched_is_denied_with_the_reason(tmp_path: Path, url: str) -> None:
    assert judge(tmp_path, "web_fetch", url=url)[0] == "deny"


def test_an_untrusted_projects_allow_rule_does_not_open_a_domain(tmp_path: Path) -> None:
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "permissions.yaml").write_text(
        "permissions:\n  include_defaults: true\n  tools:\n    - {pattern: 'web_fetch: *', action: allow}\n"
        "    - {pattern: 'web_fetch: evil.example', action: deny}\n"
    )
    assert judge(tmp_path, "web_fetch", url="https://docs.python.org/")[0] == "ask"
    assert judge(tmp_path, "web_fetch", url="https://evil.example/")[0] == "deny"  # a deny still tightens


def test_plan_mode_offers_both_as_reads() -> None:
    specs = {tool.spec.name: tool.spec for tool in builtin_tools()}
    assert is_read_only(specs["web_fetch"]) and is_read_only(specs["web_search"])


@pytest.mark.parametrize(
    ("url", "domain"),
    [
        ("https://docs.python.org@evil.example/", "evil.example"),  # user info is not the host
        ("https://evil.example#@docs.python.org/", "evil.example"),
        ("http://[::1]:8080/x", "[::1]"),
    ],
)
def test_the_domain_judged_is_the_host_hive_connects_to(tmp_path: Path, url: str, domain: str) -> None:
    assert judge(tmp_path, "web_fetch", url=url)[1] == f"web_fetch: {domain}"

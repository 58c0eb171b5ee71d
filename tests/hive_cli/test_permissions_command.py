"""`hive permissions check|show` in a subprocess, against real rule files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run_hive
from tests.support.trust import trust


def check(workdir: Path, *args: str) -> dict[str, object]:
    done = run_hive("permissions", "check", *args, "-C", str(workdir), "--format", "json")
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_check_prints_the_verdict_the_rule_its_source_and_the_reason_as_json(tmp_path: Path) -> None:
    result = check(tmp_path, "execute_command", "command=git log && rm -rf /")
    assert result["verdict"] == "deny"
    assert result["rule"] == "bash: rm -rf *"
    assert result["source"] == "built-in defaults"
    assert "recursive forced deletion" in str(result["reason"])


@pytest.mark.parametrize(
    ("args", "verdict"),
    [
        (["bash", "git", "status"], "allow"),
        (["bash", "FOO=1 sudo ls"], "deny"),
        (["read", ".env"], "ask"),
        (["write_file", "path=src/a.py", "content=x"], "allow"),
        (["edit", "package.json"], "ask"),
        (["grep_files", "pattern=x", "path=secrets"], "deny"),
        (["bash", "git -c core.pager=evil log"], "ask"),
        (["mcp__github__issue_list"], "ask"),
    ],
)
def test_check_understands_aliases_bare_words_and_key_value_pairs(
    tmp_path: Path, args: list[str], verdict: str
) -> None:
    assert check(tmp_path, *args)["verdict"] == verdict


def test_check_names_the_file_and_line_of_the_rule_that_decided(tmp_path: Path) -> None:
    rules = tmp_path / ".ironhive" / "permissions.yaml"
    rules.parent.mkdir()
    rules.write_text(
        "permissions:\n  bash:\n    - pattern: 'make *'\n      action: allow\n"
        "    - pattern: 'make deploy*'\n      action: deny\n      reason: deploys go through CI\n"
    )
    result = check(tmp_path, "bash", "make deploy-prod")
    assert result == {
        "verdict": "deny",
        "rule": "bash: make deploy*",
        "source": f"{rules}:5",
        "reason": "make deploy-prod matches bash: make deploy*: deploys go through CI",
        "tool": "execute_command",
        "arguments": {"command": "make deploy-prod"},
        "mode": "work",
        "sandbox": "workspace-write",
        "sandbox_active": True,
        "sandbox_problem": None,
    }


def test_check_in_plan_mode_denies_tools_that_are_not_read_only(tmp_path: Path) -> None:
    assert check(tmp_path, "write", "src/a.py", "--mode", "plan")["verdict"] == "deny"
    assert check(tmp_path, "read", "src/a.py", "--mode", "plan")["verdict"] == "allow"


def test_check_as_text_is_readable(tmp_path: Path) -> None:
    done = run_hive("permissions", "check", "bash", "sudo ls", "-C", str(tmp_path))
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        'deny  execute_command {"command": "sudo ls"}',
        "  rule:    bash: sudo *",
        "  source:  built-in defaults",
        "  reason:  sudo ls matches bash: sudo *: no commands as another user",
        "  sandbox: workspace-write (bubblewrap sandbox: workspace-write, network off)",
    ]


def test_a_broken_rules_file_exits_2_naming_the_file_and_line(tmp_path: Path) -> None:
    rules = tmp_path / ".ironhive" / "permissions.yml"
    rules.parent.mkdir()
    rules.write_text("permissions:\n  bash:\n    - pattern: 'git *'\n      action: yes-please\n")
    for command in (["check", "bash", "ls"], ["show"]):
        done = run_hive("permissions", *command, "-C", str(tmp_path))
        assert done.returncode == 2
        assert f"{rules}:4: permissions.bash.0.action" in done.stderr
        assert "Traceback" not in done.stderr


def test_show_lists_the_rules_in_force_with_their_sources(tmp_path: Path, isolated_hive: Path) -> None:
    user = isolated_hive / "config" / "permissions.yaml"
    user.parent.mkdir(parents=True)
    user.write_text("permissions:\n  bash:\n    - {pattern: 'docker *', action: deny}\n")
    project = tmp_path / ".ironhive" / "permissions.yaml"
    project.parent.mkdir()
    project.write_text("permissions:\n  include_defaults: true\n  read_only_tools: [mcp__docs__*]\n")
    trust(tmp_path)
    done = run_hive("permissions", "show", "-C", str(tmp_path), "--format", "json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["sources"] == [str(user), str(project)]
    assert shown["read_only_tools"] == ["mcp__docs__*"]
    bash = shown["rules"]["bash"]
    assert bash[0] == {"pattern": "docker *", "action": "deny", "priority": 0, "reason": "", "source": f"{user}:3"}
    assert {"pattern": "git *", "action": "table", "source": "built-in defaults"}.items() <= bash[1].items()
    assert shown["sandboxed"] is True and shown["mcp_read_only"] is None  # a server's readOnlyHint decides nothing
    text = run_hive("permissions", "show", "-C", str(tmp_path)).stdout
    assert "deny  docker *" in text and f"[{user}:3]" in text


def test_check_says_what_the_sandbox_changes(tmp_path: Path) -> None:
    contained = check(tmp_path, "bash", "pytest -q")
    assert (contained["verdict"], contained["sandbox"], contained["sandbox_active"]) == (
        "allow",
        "workspace-write",
        True,
    )
    off = check(tmp_path, "bash", "pytest -q", "--sandbox", "off")
    assert (off["verdict"], off["sandbox"], off["sandbox_active"]) == ("ask", "off", False)
    settings = tmp_path / ".ironhive" / "settings.yaml"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text("sandbox: read-only\n")
    assert check(tmp_path, "bash", "ls")["sandbox"] == "read-only"


def test_an_empty_rules_file_says_what_a_valid_one_looks_like(tmp_path: Path) -> None:
    rules = tmp_path / ".ironhive" / "permissions.yaml"
    rules.parent.mkdir()
    rules.write_text("")
    done = run_hive("permissions", "show", "-C", str(tmp_path))
    assert done.returncode == 2
    assert "missing the 'permissions:' section" in done.stderr and "include_defaults: true" in done.stderr
    assert "hive permissions show" not in done.stderr

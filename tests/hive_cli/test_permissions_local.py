"""`hive permissions show|check` with rules saved by "always in this project" (kept in the user config folder)."""

from __future__ import annotations

import json
from pathlib import Path

from engine.policy.local_rules import LastingRule, save_lasting
from tests.support.cli import run_hive


def test_show_lists_the_saved_rules_with_their_source(tmp_path: Path) -> None:
    local = save_lasting(tmp_path, [LastingRule("bash", "git push origin main")], "allow")
    done = run_hive("permissions", "show", "-C", str(tmp_path), "--format", "json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["sources"] == [str(local)]
    saved = shown["rules"]["bash"][0]
    assert saved == {
        "pattern": "git push origin main",
        "action": "allow",
        "priority": 0,
        "reason": "",
        "source": f"{local}:5",
        "exact": True,
    }
    assert any(rule["source"] == "built-in defaults" for rule in shown["rules"]["bash"])
    text = run_hive("permissions", "show", "-C", str(tmp_path)).stdout
    assert f"files: {local}" in text
    assert "allow git push origin main (exact)" in " ".join(text.split())
    check = run_hive("permissions", "check", "bash", "git push origin main", "-C", str(tmp_path), "--format", "json")
    assert json.loads(check.stdout)["source"] == f"{local}:5"


def test_a_broken_local_file_exits_2_naming_it(tmp_path: Path) -> None:
    local = tmp_path / ".ironhive" / "permissions.local.yaml"
    local.parent.mkdir()
    local.write_text("permissions:\n  bash:\n    - {pattern: 'git push', action: allow, exact: maybe}\n")
    for command in (["check", "bash", "ls"], ["show"]):
        done = run_hive("permissions", *command, "-C", str(tmp_path))
        assert done.returncode == 2
        assert f"{local}:3: permissions.bash.0.exact" in done.stderr
        assert "Traceback" not in done.stderr

"""``hive sandbox check``: the self-test of the sandbox, run for real."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_hive


def fake_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE\n")
    return home


def test_the_check_starts_the_sandbox_and_finds_everything_holds(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    done = run_hive("sandbox", "check", "-C", str(project), HOME=str(fake_home(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "bubblewrap sandbox: workspace-write, network off"
    assert any(line.startswith("  ✓ ~/.ssh is hidden") for line in lines)
    assert any(line.startswith("  ✓ a write outside the project is refused") for line in lines)
    assert lines[-1] == "everything holds"


def test_the_check_reports_as_json_and_says_when_the_sandbox_is_off(tmp_path: Path) -> None:
    home = fake_home(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    done = run_hive("sandbox", "check", "--format", "json", "-C", str(project), HOME=str(home))
    report = json.loads(done.stdout)
    assert report["ok"] is True and {c["name"] for c in report["checks"]} >= {"starts", "network", "secrets_absent"}
    off = run_hive("sandbox", "check", "--sandbox", "off", "-C", str(project), HOME=str(home))
    assert off.stdout.splitlines()[-1] == "the sandbox is off: commands run with your full access"

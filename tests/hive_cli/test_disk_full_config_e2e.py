"""A full disk where hive keeps the person's decisions and lists (trust, MCP approvals, plugins.yaml) and its
MCP servers' logs: one message naming the folder and what was kept, the file as it was, nothing partial left.

Each test mounts a small tmpfs (tests.support.small_disk; the suite runs as root in CI) and skips, saying why,
where it cannot.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.support.cli import run_hive
from tests.support.mcp_servers import PY_SERVER
from tests.support.small_disk import fill, leave_room


def repository(folder: Path) -> Path:
    (folder / ".git").mkdir(parents=True)
    return folder


def test_trusting_a_project_on_a_full_disk_leaves_it_untrusted_and_says_so(tmp_path: Path, small_disk: Path) -> None:
    project = repository(tmp_path / "project")
    (project / ".ironhive").mkdir()
    (project / ".ironhive" / "settings.yaml").write_text("hooks:\n  - {event: session_start, command: 'true'}\n")
    fill(small_disk)

    done = run_hive("trust", "--yes", "-C", str(project), HIVE_HOME=str(small_disk))

    config = small_disk / "config"
    assert done.returncode == 1, done.stderr
    assert (
        f"hive: no space left on device writing the trust list in {config}; "
        "the list is as it was: the project is still not trusted"
    ) in done.stderr
    assert "Traceback" not in done.stderr
    assert [path.name for path in config.iterdir()] == [".trust.lock"]  # no trust.json, no partial file
    leave_room(small_disk, 64 * 1024)
    shown = run_hive("trust", "--show", "-C", str(project), HIVE_HOME=str(small_disk))
    assert "not trusted" in shown.stdout


def test_approving_a_server_on_a_full_disk_leaves_it_unapproved_and_says_so(tmp_path: Path, small_disk: Path) -> None:
    project = repository(tmp_path / "project")
    servers = {"mcpServers": {"py": {"command": sys.executable, "args": [str(PY_SERVER)]}}}
    (project / ".mcp.json").write_text(json.dumps(servers))
    fill(small_disk)

    done = run_hive("mcp", "approve", "py", "-C", str(project), HIVE_HOME=str(small_disk))

    config = small_disk / "config"
    assert done.returncode == 1, done.stderr
    assert (
        f"hive: no space left on device writing the MCP approvals in {config}; they are as they were: py not approved"
    ) in done.stderr
    assert "Traceback" not in done.stderr
    assert [path.name for path in config.iterdir()] == [".mcp-approvals.lock"]
    leave_room(small_disk, 64 * 1024)
    listed = run_hive("mcp", "approve", "-C", str(project), HIVE_HOME=str(small_disk))
    assert "py:" in listed.stdout  # still waiting for approval


def test_adding_a_server_on_a_full_disk_leaves_plugins_yaml_as_it_was(small_disk: Path) -> None:
    project = repository(small_disk / "project")
    plugins = project / ".ironhive" / "plugins.yaml"
    plugins.parent.mkdir()
    plugins.write_text("plugins:\n  old:\n    command: x\n")
    fill(small_disk)

    done = run_hive("mcp", "add", "fs", "-C", str(project), "--", "npx", "-y", "server", "/tmp")

    assert done.returncode == 1, done.stderr
    assert (
        f"hive: no space left on device writing plugins.yaml in {plugins.parent}; it is as it was (nothing was changed)"
    ) in done.stderr
    assert "Traceback" not in done.stderr
    assert plugins.read_text() == "plugins:\n  old:\n    command: x\n"
    assert [path.name for path in plugins.parent.iterdir()] == ["plugins.yaml"]


def test_a_server_whose_log_finds_no_room_still_works_and_doctor_says_what_was_dropped(
    tmp_path: Path, small_disk: Path
) -> None:
    noisy = tmp_path / "noisy.py"  # a server that says a lot on stderr before it serves
    noisy.write_text(
        "import runpy, sys\n"
        "for _ in range(16): sys.stderr.write('starting ' * 4000 + '\\n')\n"
        f"sys.argv = [{str(PY_SERVER)!r}]\n"
        f"runpy.run_path({str(PY_SERVER)!r}, run_name='__main__')\n"
    )
    config = small_disk / "config"
    config.mkdir()
    (config / "plugins.yaml").write_text(f"plugins:\n  noisy:\n    command: {sys.executable}\n    args: [{noisy}]\n")
    project = repository(tmp_path / "project")
    fill(small_disk)

    report = run_hive("mcp", "doctor", "-C", str(project), HIVE_HOME=str(small_disk), timeout=60)

    logs = small_disk / "data" / "mcp-logs"
    assert report.returncode == 0, report.stdout + report.stderr
    assert "handshake: ok in" in report.stdout
    assert (
        f"  log: no space left on device writing noisy.log in {logs}; "
        "the log up to here is kept; what the server prints now is dropped"
    ) in report.stdout
    assert "Traceback" not in report.stderr

"""The sandbox for an ordinary user (user namespaces, no privileges), run as nobody through setpriv."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import asyncio, json, sys
from pathlib import Path
from engine.sandbox.bubblewrap import BubblewrapSandbox
from engine.sandbox.options import SandboxOptions
from engine.sandbox.probe import bubblewrap_availability
from engine.tools.base import ToolContext
from engine.tools.shell import ExecuteCommandTool

project, outside, data = map(Path, sys.argv[1:4])
availability = bubblewrap_availability(network=False)
tool = ExecuteCommandTool(sandbox=BubblewrapSandbox(SandboxOptions()))
ctx = ToolContext(cwd=project, data_dir=data)
def run(command):
    return asyncio.run(tool.run({"command": command}, ctx)).output
print(json.dumps({
    "available": availability.available,
    "reason": availability.reason,
    "id": run("id -u"),
    "inside": run("echo ok > made.txt && cat made.txt"),
    "outside": run(f"echo pwned > {outside}/file.txt"),
    "hooks": run("touch .git/hooks/pre-commit"),
    "caps": run("grep CapEff /proc/self/status"),
}))
"""

NOBODY = 65534


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv to become nobody"
)
def test_an_ordinary_user_gets_the_same_sandbox(base: Path) -> None:
    base.chmod(0o755)
    project, outside, data, home = (base / name for name in ("project", "outside", "data", "nobody-home"))
    for folder in (project / ".git" / "hooks", outside, data, home):
        folder.mkdir(parents=True)
    (outside / "file.txt").write_text("original")
    for folder in (project, project / ".git", project / ".git" / "hooks", data, home, outside):
        os.chown(folder, NOBODY, NOBODY)
    os.chown(outside / "file.txt", NOBODY, NOBODY)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "HIVE_HOME": str(home / "hive"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "TMPDIR": "/tmp",
    }
    repo = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--inh-caps=-all"]
        + [sys.executable, "-c", SCRIPT, str(project), str(outside), str(data)],
        capture_output=True,
        text=True,
        env=env,
        cwd=repo,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["available"], report["reason"]
    assert report["id"] == f"Exit code: 0\n{NOBODY}\n"
    assert report["inside"] == "Exit code: 0\nok\n"
    assert "Read-only file system" in report["outside"]
    assert "Read-only file system" in report["hooks"]
    assert report["caps"].endswith("0000000000000000\n")
    assert (outside / "file.txt").read_text() == "original"

"""The folders bwrap makes to guard a missing ``.ironhive``, with several hives' commands in one project at once.

Real bwrap, real files; a second hive is a second sandbox object (its own claim on the project's lock,
as a process has) or a real second process. The order of events is driven, never timed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from engine.paths import user_data_dir
from engine.sandbox.base import Launch
from engine.sandbox.bubblewrap import BubblewrapSandbox
from engine.sandbox.options import SandboxOptions
from tests.engine.checkpoints.helpers import workspace
from tests.engine.sandbox.helpers import require_bwrap

REPO = Path(__file__).resolve().parents[3]

# A second hive: plans a command in the project, says so, waits for "go", runs it and ends it, or with
# "die" exits at once without ending it (as a killed hive does).
_OTHER_HIVE = """
import os, subprocess, sys
from pathlib import Path
from engine.sandbox.bubblewrap import BubblewrapSandbox
from engine.sandbox.options import SandboxOptions

project = Path(sys.argv[1])
launch = BubblewrapSandbox(SandboxOptions()).prepare(sys.argv[2], project, dict(os.environ))
print("planned", flush=True)
order = sys.stdin.readline().strip()
done = subprocess.run(launch.argv, env=dict(launch.env), pass_fds=launch.pass_fds, cwd=project,
                      stdin=subprocess.DEVNULL, capture_output=True, text=True, start_new_session=True)
if order == "die":
    os._exit(0)
launch.after()
print(f"exit {done.returncode} {done.stderr.strip()}", flush=True)
"""


def _without_ironhive(project: Path) -> Path:
    (project / ".ironhive" / "permissions.yaml").unlink()
    (project / ".ironhive").rmdir()
    return project


def _hive() -> BubblewrapSandbox:
    require_bwrap()
    return BubblewrapSandbox(SandboxOptions())


def _run(launch: Launch, project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        launch.argv,
        env=dict(launch.env),
        pass_fds=launch.pass_fds,
        cwd=project,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        start_new_session=True,
        timeout=120,  # a failure guard only
    )


def _other_hive(project: Path, command: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    other = subprocess.Popen(
        [sys.executable, "-c", _OTHER_HIVE, str(project), command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=project,
    )
    assert other.stdout is not None
    line = other.stdout.readline()
    assert line == "planned\n", line + (other.stderr.read() if other.stderr else "")
    return other


def _tell(other: subprocess.Popen[str], order: str) -> str:
    out, err = other.communicate(order + "\n", timeout=120)
    assert other.returncode == 0, err
    return out


def test_a_mount_point_stays_while_another_hives_command_is_planned_on_it(project: Path) -> None:
    _without_ironhive(project)
    first, second = _hive(), _hive()
    mine = first.prepare("true", project, dict(os.environ))
    assert _run(mine, project).returncode == 0
    assert (project / ".ironhive").is_dir()  # bwrap made it to mount the guard on
    theirs = second.prepare("echo done > theirs.txt", project, dict(os.environ))  # mounts on it as it stands
    mine.after()
    assert (project / ".ironhive").is_dir()  # not pulled from under the other command
    result = _run(theirs, project)
    assert result.returncode == 0, result.stderr
    assert (project / "theirs.txt").read_text() == "done\n"
    theirs.after()
    assert not (project / ".ironhive").exists()  # the last one out removes it


def test_two_hive_processes_at_once_in_a_project_without_ironhive(project: Path) -> None:
    _without_ironhive(project)
    mine = _hive().prepare("echo mine > mine.txt", project, dict(os.environ))
    assert _run(mine, project).returncode == 0
    other = _other_hive(project, "echo theirs > theirs.txt; echo x > .ironhive/settings.yaml")
    mine.after()  # before the other process runs its planned command
    said = _tell(other, "go")
    assert said.startswith("exit 1") and "Read-only file system" in said, said  # bwrap started; the write refused
    assert (project / "mine.txt").read_text() == "mine\n"
    assert (project / "theirs.txt").read_text() == "theirs\n"
    assert not (project / ".ironhive").exists()


def test_a_killed_hives_mount_point_is_removed_by_the_next_command(project: Path) -> None:
    _without_ironhive(project)
    other = _other_hive(project, "true")
    _tell(other, "die")
    assert (project / ".ironhive").is_dir()  # killed before its end: left for now
    later = _hive().prepare("true", project, dict(os.environ))
    assert _run(later, project).returncode == 0
    later.after()
    assert not (project / ".ironhive").exists()


def test_what_the_person_put_in_the_folder_meanwhile_is_kept(project: Path) -> None:
    _without_ironhive(project)
    mine = _hive().prepare("true", project, dict(os.environ))
    assert _run(mine, project).returncode == 0
    (project / ".ironhive" / "settings.yaml").write_text("model: x\n")  # outside the sandbox: the person
    mine.after()
    assert (project / ".ironhive" / "settings.yaml").read_text() == "model: x\n"


def test_without_a_writable_data_folder_the_command_runs_and_the_folder_is_left(project: Path) -> None:
    _without_ironhive(project)
    user_data_dir().mkdir(parents=True, exist_ok=True)
    (user_data_dir() / "sandbox").write_text("not a folder")  # the lock cannot be made
    mine = _hive().prepare("echo ran > ran.txt", project, dict(os.environ))
    result = _run(mine, project)
    assert result.returncode == 0, result.stderr
    mine.after()
    assert (project / "ran.txt").read_text() == "ran\n"
    assert (project / ".ironhive").is_dir()  # better left than pulled from under another hive


def test_a_mount_point_that_outlives_its_command_is_no_change_of_that_turn(tmp_path: Path) -> None:
    from engine.checkpoints.undo import pending

    ws = workspace(tmp_path)
    holder = _hive().prepare("true", ws.root, dict(os.environ))  # another hive's command, planned and not ended
    ws.call("execute_command", command="echo out > made.txt")
    ws.end_round(first=True)
    assert (ws.root / ".ironhive").is_dir()  # this command's mount point, held by the other command
    [turn] = pending(ws.store)
    assert [Path(path).name for path in turn.changes] == ["made.txt"]  # not the folder: no undo removes it
    holder.after()
    assert not (ws.root / ".ironhive").exists()

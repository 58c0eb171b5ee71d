"""Several hives in one project: each undo reverts its own run only, an open turn is not undone, a kill is undoable.

Real `hive run` processes, each against its own scripted model server, with the sandbox as the suite
runs it. The order of events is set by the files the commands wait for and by held model replies,
never by the clock.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from tests.engine.checkpoints.helpers import texts
from tests.support.cli import hive_env, run_hive
from tests.support.llm_server import HeldReply, LLMServer, call, text, tool_calls

BOUND_S = 60  # only a failure ever waits this long


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + BOUND_S
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.02)


@contextmanager
def hive_run(server: LLMServer, project: Path, prompt: str) -> Iterator[subprocess.Popen[str]]:
    """`hive run` in the background (its own process group, so a kill reaches the whole family)."""
    args = ["run", prompt, "--yes", "--model", "openai/test-model", "--api-base", server.base_url]
    process = subprocess.Popen(
        [sys.executable, "-m", "hive_cli", *args, "--api-key", "sk-test", "-C", str(project)],
        env=hive_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()


def finished(process: subprocess.Popen[str]) -> str:
    out, err = process.communicate(timeout=BOUND_S)
    assert process.returncode == 0, err
    return out + err


def undo(project: Path) -> subprocess.CompletedProcess[str]:
    return run_hive("undo", "--yes", "-C", str(project))


def project_in(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".hive").mkdir(parents=True)  # the commands wait for flags here: hive's scratch, never in a turn
    return project


def test_undo_of_each_of_several_runs_at_once_leaves_every_other_runs_files(tmp_path: Path) -> None:
    project = project_in(tmp_path)
    names = ("r0", "r1", "r2")
    with ExitStack() as stack:
        servers = {name: stack.enter_context(LLMServer()) for name in names}
        held = {name: HeldReply(text("done")) for name in names}
        for name, server in servers.items():
            work = tool_calls(
                call("write_file", {"path": f"w_{name}.txt", "content": f"written by {name}"}, id="w"),
                call(
                    "execute_command", {"command": f"for i in 1 2 3; do echo {name} $i >> c_{name}.txt; done"}, id="c"
                ),
            )
            server.script(work, held[name])
        runs = {name: stack.enter_context(hive_run(servers[name], project, f"work as {name}")) for name in names}
        for name in names:  # every run is mid-turn at once: its files written, its reply held
            held[name].wait_arrived()
        for name in names:
            held[name].release()
        shown = {name: finished(run) for name, run in runs.items()}

    everything = texts(project)
    for name in names:  # each run wrote its file and its command's (what the run printed says why if not)
        assert {f"w_{name}.txt", f"c_{name}.txt"} <= set(everything), shown[name]
    undone: set[str] = set()
    for _ in names:
        assert undo(project).returncode == 0
        now = texts(project)
        gone = {name for name in names if f"w_{name}.txt" not in now} - undone
        assert len(gone) == 1, f"one undo reverted the files of {sorted(gone)}"
        undone |= gone
        for name in set(names) - undone:  # every run not undone yet still has all it made, as it made it
            for path in (f"w_{name}.txt", f"c_{name}.txt"):
                assert now.get(path) == everything[path], f"undoing {gone} changed {path}"
        for name in undone:  # and what an undone run wrote stays gone (never re-created)
            assert f"w_{name}.txt" not in now
    assert "Nothing to undo" in undo(project).stderr


def test_a_command_waiting_while_another_run_works_records_only_its_own_changes_and_an_open_turn_is_not_undone(
    tmp_path: Path,
) -> None:
    project = project_in(tmp_path)
    waiting = "echo 1 > a_started.txt; while [ ! -f .hive/go ]; do sleep 0.02; done; echo a > cmd_a.txt"
    with LLMServer() as server_a, LLMServer() as server_b:
        server_a.script(
            tool_calls(
                call("write_file", {"path": "a.txt", "content": "by a"}, id="w"),
                call("execute_command", {"command": waiting}, id="c"),
            ),
            text("a done"),
        )
        b_held = HeldReply(text("b done"))
        server_b.script(
            tool_calls(
                call("write_file", {"path": "b.txt", "content": "by b"}, id="w"),
                call("execute_command", {"command": "echo b > cmd_b.txt"}, id="c"),
            ),
            b_held,
        )
        with hive_run(server_a, project, "work as a") as run_a:
            wait_for((project / "a_started.txt").exists, "a's command started")
            with hive_run(server_b, project, "work as b") as run_b:
                b_held.wait_arrived()  # b's first round is saved and b is waiting for the model: its turn is open
                refused = undo(project)
                assert refused.returncode == 1
                assert f"still running in hive process {run_b.pid}" in refused.stderr
                assert "Traceback" not in refused.stderr
                assert set(texts(project)) == {"a.txt", "a_started.txt", "b.txt", "cmd_b.txt"}
                (project / ".hive" / "go").touch()  # a's command ends now, after b wrote its files
                finished(run_a)
                b_held.release()
                finished(run_b)

    everything = texts(project)
    assert set(everything) == {"a.txt", "a_started.txt", "cmd_a.txt", "b.txt", "cmd_b.txt"}
    assert undo(project).returncode == 0  # b, the newest turn: a's files stay
    assert texts(project) == {k: v for k, v in everything.items() if k != "b.txt"}
    assert undo(project).returncode == 0  # a: only what a did goes; b's command output stays
    assert texts(project) == {"cmd_b.txt": "b\n"}


def test_a_run_killed_during_a_command_is_undone_whole_by_the_next_undo(tmp_path: Path) -> None:
    project = project_in(tmp_path)
    (project / "kept.txt").write_text("before")
    command = (
        "echo changed > kept.txt; mkdir -p out && echo made > out/made.txt; echo 1 > started.txt; "
        "while [ ! -f .hive/stop ]; do sleep 0.02; done"
    )
    with LLMServer() as server:
        server.script(tool_calls(call("execute_command", {"command": command}, id="c")), text("never sent"))
        with hive_run(server, project, "work, then be killed") as run:
            wait_for((project / "started.txt").exists, "the command ran its writes")
            os.killpg(run.pid, signal.SIGKILL)
            run.wait(BOUND_S)
        (project / ".hive" / "stop").touch()  # a command left running by the kill ends, writing nothing more

    assert texts(project) == {"kept.txt": "changed\n", "out/made.txt": "made\n", "started.txt": "1\n"}
    listed = run_hive("checkpoints", "list", "-C", str(project))
    assert "ended during a command" in listed.stdout
    done = undo(project)
    assert done.returncode == 0, done.stderr
    assert texts(project) == {"kept.txt": "before"}
    assert not (project / "out").exists()


def test_a_run_killed_during_its_second_command_is_undone_whole_from_the_session_scan_and_its_changes(
    tmp_path: Path,
) -> None:
    """The second command's pending pre-scan holds only what changed since the session's first: both are read."""
    project = project_in(tmp_path)
    for name in ("kept.txt", "gone.txt", "later.txt"):
        (project / name).write_text(f"{name} before")
    start = texts(project)
    first = "echo first > kept.txt && rm gone.txt && echo new > new.txt"
    second = (
        "echo second > kept.txt; echo changed > later.txt; rm new.txt; echo 1 > started.txt; "
        "while [ ! -f .hive/stop ]; do sleep 0.02; done"
    )
    with LLMServer() as server:
        server.script(
            tool_calls(call("execute_command", {"command": first}, id="c1")),
            tool_calls(call("execute_command", {"command": second}, id="c2")),
            text("never sent"),
        )
        with hive_run(server, project, "work twice, then be killed") as run:
            wait_for((project / "started.txt").exists, "the second command ran its writes")
            os.killpg(run.pid, signal.SIGKILL)
            run.wait(BOUND_S)
        (project / ".hive" / "stop").touch()

    assert texts(project) == {"kept.txt": "second\n", "later.txt": "changed\n", "started.txt": "1\n"}
    done = undo(project)
    assert done.returncode == 0, done.stderr
    assert texts(project) == start


def test_a_run_killed_during_a_command_in_a_git_repository_gets_its_tracked_files_back_from_git(
    tmp_path: Path,
) -> None:
    """The killed run's pre-scan named clean tracked files by their blobs; settling copies them out of git."""
    project = project_in(tmp_path)
    for number in range(40):  # enough files for the index to be read
        (project / f"f{number}.txt").write_text(f"tracked {number}\n")
    identity = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "one"]):
        subprocess.run(["git", *command], cwd=project, env={**os.environ, **identity}, check=True)
    os.utime(project / ".git" / "index")  # written after the files: none is racily clean

    def work_tree() -> dict[str, str]:
        return {p.name: p.read_text() for p in project.glob("*.txt")}

    start = work_tree()
    command = "echo changed > f1.txt; rm f2.txt; echo 1 > started.txt; while [ ! -f .hive/stop ]; do sleep 0.02; done"
    with LLMServer() as server:
        server.script(tool_calls(call("execute_command", {"command": command}, id="c")), text("never sent"))
        with hive_run(server, project, "work, then be killed") as run:
            wait_for((project / "started.txt").exists, "the command ran its writes")
            os.killpg(run.pid, signal.SIGKILL)
            run.wait(BOUND_S)
        (project / ".hive" / "stop").touch()

    assert work_tree()["f1.txt"] == "changed\n" and "f2.txt" not in work_tree()
    kept = [path for path in Path(os.environ["HIVE_HOME"]).rglob("objects/*/*") if path.is_file()]
    assert len(kept) < 10  # the 40 committed files were named by their blobs, not copied
    done = undo(project)
    assert done.returncode == 0, done.stderr
    assert work_tree() == start

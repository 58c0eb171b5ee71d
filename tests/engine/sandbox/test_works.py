"""What must keep working inside the sandbox."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

from engine.sandbox.options import SandboxOptions
from tests.engine.sandbox.helpers import GIT, Runner, make_repo


def test_writing_and_deleting_inside_the_project_works(run: Runner, project: Path) -> None:
    (project / "old.txt").write_text("old")
    result = run("mkdir -p src/pkg && echo new > src/pkg/new.txt && rm old.txt && echo edited >> README.md")
    assert result.success is True, result.output
    assert (project / "src" / "pkg" / "new.txt").read_text() == "new\n"
    assert not (project / "old.txt").exists()
    assert (project / "README.md").read_text() == "hello\nedited\n"


def test_git_status_and_commit_work_with_hooks_and_config_read_only(run: Runner, project: Path) -> None:
    nested = make_repo(project / "libs" / "nested")
    git = " ".join(GIT)
    result = run(
        f"echo change >> README.md && {git} status --short && {git} commit -qam second && {git} log --oneline | wc -l"
        f" && cd libs/nested && echo x > f && {git} add f && {git} commit -qm nested && {git} status --short"
    )
    assert result.success is True, result.output
    lines = result.output.splitlines()
    assert " M README.md" in lines and lines[-1] == "2"
    assert (nested / ".git" / "refs" / "heads" / "main").exists()


def test_bash_and_python_are_available(run: Runner) -> None:
    result = run("python3 -c 'print(6 * 7)' && bash --version | head -1")
    assert result.success is True and "42" in result.output and "GNU bash" in result.output


def test_tmp_is_writable_and_private(run: Runner) -> None:
    name = f"hive-sandbox-{uuid.uuid4().hex}"
    host_file = Path("/tmp") / f"{name}-host"
    host_file.write_text("host")
    try:
        result = run(f"echo inside > /tmp/{name} && cat /tmp/{name} && ls /tmp/{name}-host")
        assert "inside" in result.output and "No such file" in result.output
        assert not (Path("/tmp") / name).exists()
    finally:
        host_file.unlink()


def test_a_project_under_tmp_is_writable(tmp_path: Path) -> None:
    project = make_repo(tmp_path / "project")
    result = Runner(project, tmp_path / "data")("echo ok > made.txt && cat README.md")
    assert result.success is True, result.output
    assert (project / "made.txt").read_text() == "ok\n"


def test_read_only_mode_refuses_writes_to_the_project_but_not_to_tmp(run: Runner, project: Path) -> None:
    readonly = run.with_options(SandboxOptions(mode="read-only"))
    assert readonly("cat README.md && echo x > /tmp/x && cat /tmp/x").success is True
    result = readonly("touch made.txt")
    assert result.success is False and not (project / "made.txt").exists()
    assert result.output.endswith("[The sandbox may have blocked this: it refuses every write outside /tmp.]")


def test_read_only_mode_still_shows_a_project_under_tmp(tmp_path: Path) -> None:
    project = make_repo(tmp_path / "project")
    runner = Runner(project, tmp_path / "data", SandboxOptions(mode="read-only"))
    assert runner("cat README.md").output == "Exit code: 0\nhello\n"


def test_extra_writable_roots_are_writable(run: Runner, outside: Path) -> None:
    runner = run.with_options(SandboxOptions(writable_roots=(outside,)))
    assert runner(f"echo changed > {outside}/file.txt").success is True
    assert (outside / "file.txt").read_text() == "changed\n"


def test_a_command_started_in_a_subfolder_runs_there_with_the_project_writable(run: Runner, project: Path) -> None:
    (project / "sub").mkdir()
    result = run("pwd && touch ../top.txt", cwd=project / "sub")
    assert result.output.splitlines()[1] == str(project / "sub")
    assert (project / "top.txt").exists()


def test_a_worktree_commits_once_its_common_git_folder_is_a_writable_root(home: Path, base: Path) -> None:
    main = make_repo(base / "main")
    worktree = base / "wt"
    subprocess.run([*GIT, "-C", str(main), "worktree", "add", "-q", "-b", "side", str(worktree)], check=True)
    git = " ".join(GIT)
    command = f"echo x >> README.md && {git} commit -qam in-worktree"
    assert Runner(worktree, base / "data")(command).success is False  # the common .git is outside
    runner = Runner(worktree, base / "data", SandboxOptions(writable_roots=(main / ".git",)))
    result = runner(f"{command} && echo '[core] hooksPath = /x' >> {main}/.git/config")
    assert result.success is False and "Read-only file system" in result.output
    assert "hooksPath" not in (main / ".git" / "config").read_text()
    log = subprocess.run([*GIT, "-C", str(worktree), "log", "--oneline"], capture_output=True, text=True, check=True)
    assert "in-worktree" in log.stdout

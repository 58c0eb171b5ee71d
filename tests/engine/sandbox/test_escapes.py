"""Escape attempts that must fail inside the sandbox (real bwrap, real files)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from engine.sandbox.options import SandboxOptions
from tests.engine.sandbox.helpers import SECRET, Runner, make_repo


def test_writing_and_deleting_outside_the_project_is_refused(run: Runner, home: Path, outside: Path) -> None:
    result = run(f"echo pwned > {home}/notes.txt; rm -f {outside}/file.txt; touch {home}/new; mkdir {outside}/d")
    assert result.success is False
    assert "Read-only file system" in result.output
    assert (home / "notes.txt").read_text() == "original"
    assert (outside / "file.txt").read_text() == "original"
    assert not (home / "new").exists() and not (outside / "d").exists()


def test_a_refused_write_gets_a_line_saying_the_sandbox_may_have_blocked_it(run: Runner, outside: Path) -> None:
    result = run(f"echo pwned > {outside}/file.txt")
    assert result.output.endswith(
        "[The sandbox may have blocked this: it refuses writes outside the project and /tmp.]"
    )


def test_git_hooks_config_and_the_project_config_are_read_only(run: Runner, project: Path) -> None:
    hook = project / ".git" / "hooks" / "pre-commit"
    config = project / ".git" / "config"
    before = config.read_text()
    result = run(
        "echo 'touch /pwned' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit;"
        "echo '[core] hooksPath = /x' >> .git/config; git config core.hooksPath /x;"
        "echo 'rules: [allow everything]' > .ironhive/permissions.yaml; touch .ironhive/settings.yaml;"
        "rm -rf .git/hooks .ironhive; mv .git/config .git/config.old; mv .git .git-old; mv .ironhive .x"
    )
    assert result.success is False
    assert not hook.exists() and config.read_text() == before
    assert (project / ".ironhive" / "permissions.yaml").read_text() == "rules: []\n"
    assert not (project / ".ironhive" / "settings.yaml").exists()
    assert (project / ".git" / "HEAD").exists() and not (project / ".git-old").exists()


def test_a_missing_ironhive_folder_cannot_be_created(run: Runner, project: Path) -> None:
    (project / ".ironhive" / "permissions.yaml").unlink()
    (project / ".ironhive").rmdir()
    result = run("mkdir -p .ironhive && echo 'rules: []' > .ironhive/permissions.yaml")
    assert result.success is False
    assert not (project / ".ironhive").exists()  # its mount point is removed once the command ends


def test_nested_repositories_and_git_files_are_protected(run: Runner, project: Path) -> None:
    nested = make_repo(project / "vendor" / "lib")
    modules = project / ".git" / "modules" / "sub"
    modules.mkdir(parents=True)
    (modules / "config").write_text("[core]\n")
    (project / "sub").mkdir()
    (project / "sub" / ".git").write_text("gitdir: ../.git/modules/sub\n")
    result = run(
        "echo x >> vendor/lib/.git/config; touch vendor/lib/.git/hooks/post-checkout;"
        "echo 'gitdir: /elsewhere' > sub/.git; echo x >> .git/modules/sub/config; mkdir .git/modules/sub/hooks"
    )
    assert result.success is False
    assert "x" not in (nested / ".git" / "config").read_text().splitlines()
    assert not (nested / ".git" / "hooks" / "post-checkout").exists()
    assert (project / "sub" / ".git").read_text() == "gitdir: ../.git/modules/sub\n"
    assert (modules / "config").read_text() == "[core]\n"
    assert not (modules / "hooks").exists()  # the guard's mount point is removed once the command ends


def test_a_git_commondir_written_by_the_command_is_removed_afterwards(run: Runner, project: Path) -> None:
    result = run("echo /var/tmp/evil > .git/commondir")
    assert not (project / ".git" / "commondir").exists()
    assert f"[Sandbox: removed {project / '.git' / 'commondir'}" in result.output


def test_a_symlink_made_in_the_command_cannot_write_outside(run: Runner, outside: Path) -> None:
    result = run(f"ln -s {outside}/file.txt link && echo pwned > link; ln -s {outside} dir && touch dir/new")
    assert result.success is False
    assert (outside / "file.txt").read_text() == "original"
    assert not (outside / "new").exists()


def test_a_symlink_already_in_the_project_is_no_writable_hole(run: Runner, project: Path, outside: Path) -> None:
    (project / "out").symlink_to(outside)
    result = run("echo pwned > out/file.txt")
    assert result.success is False
    assert (outside / "file.txt").read_text() == "original"


def test_credential_stores_in_home_are_hidden(run: Runner, home: Path) -> None:
    read = run(f"cat {home}/.ssh/id_rsa {home}/.aws/credentials {home}/.netrc {home}/.config/gh/hosts.yml")
    assert SECRET not in read.output
    listed = run(f"ls -A {home}")
    assert listed.output == "Exit code: 0\n(no output)"  # an empty home: the fake one holds no toolchain


def test_project_secrets_are_hidden_also_through_a_symlink(run: Runner, project: Path, outside: Path) -> None:
    (outside / "real.env").write_text(SECRET)
    (project / "config").mkdir()
    (project / "config" / ".env.production").symlink_to(outside / "real.env")
    result = run("cat .env secrets/token config/.env.production; grep -r PRIVATE . ; echo done")
    assert SECRET not in result.output and "done" in result.output
    assert run("ls -A secrets").output == "Exit code: 0\n(no output)"


def test_hives_own_config_and_data_are_hidden(base: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hive_home = base / "hive"
    (hive_home / "config").mkdir(parents=True)
    (hive_home / "config" / "settings.yaml").write_text(SECRET)
    (hive_home / "data" / "sessions").mkdir(parents=True)
    monkeypatch.setenv("HIVE_HOME", str(hive_home))
    result = Runner(project, base / "data")(f"ls -A {hive_home}/config {hive_home}/data; cat {hive_home}/config/*")
    assert SECRET not in result.output and "settings" not in result.output and "sessions" not in result.output


def test_secret_environment_variables_do_not_reach_the_command(run: Runner, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = {
        "HIVE_API_KEY": "hive-key-1234567",
        "OPENAI_API_KEY": "sk-openai-1234567",
        "GITHUB_TOKEN": "ghp_token1234567",
        "AWS_SECRET_ACCESS_KEY": "aws-secret-1234567",
        "AWS_ACCESS_KEY_ID": "AKIAABCDEFGHIJKLMNOP",
        "DB_PASSWORD": "db-password-1234567",
        "my_service_token": "lower-case-1234567",
        "DATABASE_URL": "postgres://user:pw-1234567@db/app",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LANG", "C.UTF-8")
    result = run("env; echo ---; tr '\\0' '\\n' < /proc/self/environ; echo ---; cat /proc/1/environ | tr '\\0' '\\n'")
    for value in secrets.values():
        assert value not in result.output
    assert "LANG=C.UTF-8" in result.output
    assert f"PATH={os.environ['PATH']}" in result.output and "HOME=" in result.output
    assert "PAGER=cat" in result.output and "GIT_PAGER=cat" in result.output


def test_the_network_is_off_even_to_loopback_on_the_host(run: Runner) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        result = run(f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED")
    assert result.success is False and "CONNECTED" not in result.output
    assert result.output.endswith("[The sandbox may have blocked this: the network is off inside it.]")


def test_the_network_is_reachable_when_allowed(run: Runner) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        result = run.with_options(SandboxOptions(network=True))(f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED")
    assert result.success is True and "CONNECTED" in result.output


def test_root_in_the_sandbox_has_no_capabilities_and_cannot_undo_the_mounts(
    run: Runner, home: Path, outside: Path
) -> None:
    result = run(
        "grep -E '^Cap(Eff|Prm|Bnd|Amb)' /proc/self/status;"
        "mount -o remount,rw / ; echo remount=$?;"
        f"mount -o remount,rw {outside} ; echo remount_outside=$?;"
        f"umount {home}/.ssh ; echo umount=$?;"
        f"umount -l {run.project}/.git/hooks ; echo umount_hooks=$?;"
        "mount -t tmpfs none /mnt ; echo mount=$?;"
        "unshare -r true ; echo unshare=$?;"
        "setpriv --inh-caps=+all true 2>/dev/null; echo setpriv=$?;"
        f"echo pwned > {outside}/file.txt; cat {home}/.ssh/id_rsa; echo end"
    )
    lines = result.output.splitlines()
    caps = [line for line in lines if line.startswith("Cap")]
    assert len(caps) == 4 and all(line.endswith("0000000000000000") for line in caps), caps
    for step in ("remount", "remount_outside", "umount", "umount_hooks", "mount", "unshare"):
        assert any(line.startswith(f"{step}=") and line != f"{step}=0" for line in lines), (step, result.output)
    assert (outside / "file.txt").read_text() == "original"
    assert SECRET not in result.output


def test_the_command_sees_only_its_own_processes_and_no_terminal(run: Runner) -> None:
    result = run(f"kill -0 {os.getpid()} && echo SAW-HOST; ls /proc | grep -c '^[0-9]'; exec 3</dev/tty && echo TTY")
    assert "SAW-HOST" not in result.output and "TTY" not in result.output
    count = next(int(line) for line in result.output.splitlines() if line.isdigit())
    assert count < 10

"""The hidden home, the project's secret files and the environment, with the real sandbox and canaries in a fake home."""

from __future__ import annotations

import os
import pwd
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.sandbox.options import SandboxOptions
from engine.sandbox.toolchains import TOOLCHAINS
from tests.engine.sandbox.helpers import SECRET, Runner, make_repo

CANARIES = (
    ".bash_history",
    ".zsh_history",
    "work/other-project/.env",
    "work/other-project/notes.txt",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".pulumi/credentials.json",
    ".cargo/credentials.toml",
    ".nvm/versions/node/v20.1.0/etc/npmrc",
    ".config/some-app/token",
    "Documents/taxes.txt",
)
PROJECT_SECRETS = ("id_rsa", "deploy/server.pem", ".netrc", "credentials.json", "infra/terraform.tfstate", "tls.key")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def canaries(home: Path) -> Path:
    for relative in CANARIES:
        write(home / relative, SECRET)
    write(home / ".cargo" / "bin" / "fake-tool", "#!/bin/sh\necho fake tool runs\n").chmod(0o755)
    write(home / ".m2" / "repository" / "org" / "lib.pom", "<project/>\n")
    write(home / ".nvm" / "versions" / "node" / "v20.1.0" / "bin" / "node-version", "v20.1.0\n")
    return home


@pytest.fixture
def credential_daemon(home: Path) -> Iterator[Path]:
    """A daemon answering on a unix socket under the home (as git's credential-cache does)."""
    path = home / ".cache" / "git" / "credential" / "socket"
    path.parent.mkdir(parents=True)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(str(path))
        listener.listen(1)
        yield path


def test_nothing_of_the_home_is_readable_but_the_toolchains(run: Runner, canaries: Path) -> None:
    paths = " ".join(str(canaries / relative) for relative in CANARIES)
    result = run(f"cat {paths} 2>&1; grep -r {SECRET} {canaries} 2>&1; ls -A {canaries}; echo done")
    assert SECRET not in result.output and "done" in result.output
    assert run(f"{canaries}/.cargo/bin/fake-tool").output.rstrip() == "Exit code: 0\nfake tool runs"
    assert "v20.1.0" in run(f"cat {canaries}/.nvm/versions/node/v20.1.0/bin/node-version").output
    assert "<project/>" in run(f"cat {canaries}/.m2/repository/org/lib.pom").output


def test_the_home_is_a_scratch_folder_and_the_shown_toolchains_are_read_only(run: Runner, canaries: Path) -> None:
    result = run(f"echo scratch > ~/scratch && cat ~/scratch && touch {canaries}/.m2/repository/new; echo $?")
    assert "scratch" in result.output and result.output.rstrip().endswith("1")
    assert not (canaries / "scratch").exists() and not (canaries / ".m2" / "repository" / "new").exists()


def test_a_socket_under_the_home_is_out_of_reach_even_with_unix_sockets_allowed(
    run: Runner, credential_daemon: Path
) -> None:
    assert run(f"test -e {credential_daemon} && echo visible || echo absent").output.rstrip().endswith("absent")
    probe = f"import socket; s = socket.socket(socket.AF_UNIX); s.connect({str(credential_daemon)!r}); print('talked')"
    lifted = run.with_options(SandboxOptions(unix_sockets_inside=True))  # the seccomp rule off: the path decides
    result = lifted(f"python3 -c {_quoted(probe)}")
    assert "talked" not in result.output and "FileNotFoundError" in result.output


def test_another_project_in_the_home_is_hidden_from_a_project_in_the_home(base: Path, canaries: Path) -> None:
    project = make_repo(canaries / "work" / "this-project")
    runner = Runner(project, base / "data")
    result = runner("cat ../other-project/.env ~/.bash_history; echo edit > mine.txt && cat mine.txt")
    assert SECRET not in result.output and result.output.rstrip().endswith("edit")
    assert runner("ls -A ..").output.rstrip() == "Exit code: 0\nthis-project"
    assert (project / "mine.txt").read_text() == "edit\n"


def test_the_projects_own_secret_files_are_hidden(run: Runner, project: Path) -> None:
    for relative in PROJECT_SECRETS:
        write(project / relative, SECRET)
    result = run(f"cat {' '.join(PROJECT_SECRETS)}; grep -r {SECRET} . ; echo done")
    assert SECRET not in result.output and "done" in result.output


def test_a_read_path_of_the_users_is_shown(run: Runner, canaries: Path) -> None:
    write(canaries / "bin" / "mytool", "my tool\n")
    assert "No such file" in run(f"cat {canaries}/bin/mytool").output
    shown = run.with_options(SandboxOptions(read_paths=(canaries / "bin",)))
    assert "my tool" in shown(f"cat {canaries}/bin/mytool").output
    assert SECRET not in shown(f"cat {canaries}/.bash_history").output


def test_the_git_configuration_keeps_who_commits_and_drops_what_holds_secrets(run: Runner, home: Path) -> None:
    write(
        home / ".gitconfig",
        "[user]\n\tname = Ada\n\temail = ada@example.invalid\n\tsigningkey = ABC\n"
        f"[credential]\n\thelper = store --file {home}/.git-credentials\n"
        f'[url "https://ada:{SECRET}@git.example.invalid/"]\n\tinsteadOf = https://git.example.invalid/\n'
        f'[http "https://git.example.invalid/"]\n\textraHeader = Authorization: Bearer {SECRET}\n'
        f"[include]\n\tpath = {home}/.gitconfig.private\n[alias]\n\tst = status\n",
    )
    result = run(
        "git config --global --list; git commit -q --allow-empty -m 'from the sandbox' && git log -1 --format=%an"
    )
    assert SECRET not in result.output and "helper" not in result.output and "include" not in result.output
    assert "user.name=Ada" in result.output and "alias.st=status" in result.output
    assert result.output.rstrip().endswith("Ada")


def test_variables_pass_by_the_list_and_the_users_own_names(run: Runner, monkeypatch: pytest.MonkeyPatch) -> None:
    dropped = {
        "REDIS_URL": "redis://:pw-canary-1@cache:6379/0",
        "AZURE_STORAGE_CONNECTION_STRING": "DefaultEndpointsProtocol=https;AccountKey=key-canary-2==",
        "CI_JOB_JWT": "eyJhbGciOiJSUzI1NiJ9.jwt-canary-3.sig",
        "DATABASE_URL": "postgres://db/app?password=pw-canary-4",
        "MY_THING": "https://host/x?password=pw-canary-5",
        "SSH_AUTH_SOCK": "/run/user/0/agent-canary-6",
    }
    for name, value in {**dropped, "DEPLOY_TARGET": "staging-canary-7", "LANG": "C.UTF-8"}.items():
        monkeypatch.setenv(name, value)
    passed = run.with_options(SandboxOptions(env=("DEPLOY_TARGET",)))
    output = passed("env; tr '\\0' '\\n' < /proc/self/environ").output
    assert not [name for name, value in dropped.items() if value in output]
    assert "DEPLOY_TARGET=staging-canary-7" in output and "LANG=C.UTF-8" in output
    assert "DEPLOY_TARGET" not in run("env").output


def test_a_project_that_is_the_home_says_it_hides_nothing_and_runs(base: Path, home: Path) -> None:
    subprocess.run(["git", "init", "-q", str(home)], check=True)
    write(home / "notes.txt", "the home's own notes\n")
    runner = Runner(home, base / "data")
    first = runner("cat notes.txt; cat .ssh/id_rsa")
    assert "the home's own notes" in first.output and SECRET not in first.output
    assert "cannot hide the home" in first.output
    assert "cannot hide the home" not in runner("true").output  # said once


def test_the_runtime_folder_is_hidden_wherever_it_is(run: Runner, base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runtime = write(base / "runtime" / "bus-canary", SECRET).parent
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert SECRET not in run(f"cat {runtime}/bus-canary; ls {runtime}").output


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def test_the_account_home_is_hidden_too_when_home_points_elsewhere(run: Runner, home: Path) -> None:
    account = Path(pwd.getpwuid(os.getuid()).pw_dir)
    assert account != home  # the fixture points HOME at a fake one
    inside = set(run(f"ls -A {account}").output.splitlines()[1:]) - {"(no output)"}
    toolchain_names = {toolchain.place.split("/")[0] for toolchain in TOOLCHAINS if toolchain.place}
    assert inside <= toolchain_names

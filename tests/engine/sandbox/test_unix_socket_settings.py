"""``sandbox.allow_unix_sockets``: the user's settings only; a project's file asks in vain, trusted or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config.settings import load_settings
from engine.paths import user_config_dir
from tests.support.cli import run_hive
from tests.support.trust import trust


def write_settings(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "settings.yaml"
    path.write_text(text)
    return path


def test_the_users_settings_name_socket_files_and_inside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    write_settings(
        user_config_dir(), "sandbox:\n  allow_unix_sockets: ['~/.ssh/agent.sock', inside, /run/user/0/bus]\n"
    )
    project = tmp_path / "project"
    project.mkdir()

    options, refused = load_settings(project).sandbox_options(project)

    assert options.unix_sockets == (tmp_path / "home" / ".ssh" / "agent.sock", Path("/run/user/0/bus"))
    assert options.unix_sockets_inside and options.allows_unix_sockets and refused == ()


@pytest.mark.parametrize("trusted", [False, True])
def test_a_projects_settings_cannot_allow_unix_sockets(tmp_path: Path, trusted: bool) -> None:
    project = tmp_path / "project"
    write_settings(project / ".ironhive", "sandbox:\n  allow_unix_sockets: [/var/run/docker.sock, inside]\n")
    if trusted:
        trust(project)

    options, refused = load_settings(project).sandbox_options(project)

    assert not options.allows_unix_sockets and options.unix_sockets == ()
    assert refused == ("allow_unix_sockets: /var/run/docker.sock, inside",)


def test_a_relative_socket_path_is_a_config_error_with_one_message(tmp_path: Path) -> None:
    settings = write_settings(user_config_dir(), "sandbox:\n  allow_unix_sockets: [agent.sock]\n")
    project = tmp_path / "project"
    project.mkdir()

    done = run_hive("sandbox", "check", "-C", str(project))

    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"hive: {settings}:1: sandbox: allow_unix_sockets: 'agent.sock' should be the absolute path of a socket file "
        "(or start with ~), or 'inside'"
    )

"""The hidden home's allow-list, computed from real folders (no bwrap needed): what is shown, where, and what stays hidden."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.sandbox.home import home_view
from engine.sandbox.toolchains import TOOLCHAINS, toolchain_folders


def make(path: Path, text: str = "x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def fake_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    make(home / ".cargo" / "bin" / "cargo")
    make(home / ".cargo" / "registry" / "index" / "x")
    make(home / ".cargo" / "credentials.toml", "token = 'secret'")
    make(home / ".npm" / "_cacache" / "index-v5" / "x")
    make(home / ".npm" / "_logs" / "debug.log")
    make(home / ".nvm" / "versions" / "node" / "v20.1.0" / "bin" / "node")
    make(home / ".nvm" / "versions" / "node" / "v20.1.0" / "etc" / "npmrc", "//registry/:_authToken=secret")
    make(home / ".gem" / "credentials", ":rubygems_api_key: secret")
    make(home / ".gem" / "specs" / "x")
    make(home / ".m2" / "repository" / "a.jar")
    make(home / ".m2" / "settings.xml", "<password>secret</password>")
    make(home / ".gradle" / "caches" / "x")
    make(home / ".gradle" / "gradle.properties", "signing.password=secret")
    make(home / ".bash_history", "export TOKEN=secret")
    return home


def test_the_toolchains_that_exist_are_shown_and_their_secrets_hidden(fake_home: Path) -> None:
    found = toolchain_folders((fake_home,), {})
    assert set(found.shown) == {
        fake_home / ".cargo" / "bin",
        fake_home / ".cargo" / "registry",
        fake_home / ".npm" / "_cacache",
        fake_home / ".nvm",
        fake_home / ".gem",
        fake_home / ".m2" / "repository",
        fake_home / ".gradle" / "caches",
    }
    assert set(found.secrets) == {
        fake_home / ".nvm" / "versions" / "node" / "v20.1.0" / "etc" / "npmrc",
        fake_home / ".gem" / "credentials",
    }


def test_a_variable_moves_a_toolchain_and_wins_over_its_usual_place(fake_home: Path, tmp_path: Path) -> None:
    make(fake_home / "tools" / "cargo-home" / "bin" / "cargo")
    found = toolchain_folders((fake_home,), {"CARGO_HOME": str(fake_home / "tools" / "cargo-home")})
    assert fake_home / "tools" / "cargo-home" / "bin" in found.shown
    assert fake_home / ".cargo" / "bin" not in found.shown
    make(tmp_path / "elsewhere" / "bin" / "cargo")
    moved_out = toolchain_folders((fake_home,), {"CARGO_HOME": str(tmp_path / "elsewhere")})
    assert not any("cargo" in str(path) for path in moved_out.shown)  # visible where it is: nothing to show


def test_a_variable_naming_the_home_itself_shows_nothing(fake_home: Path) -> None:
    assert fake_home not in toolchain_folders((fake_home,), {"PYENV_ROOT": str(fake_home)}).shown


def test_the_view_hides_the_home_and_shows_the_allow_list_and_read_paths(fake_home: Path, tmp_path: Path) -> None:
    make(fake_home / "bin" / "mytool")
    project = tmp_path / "project"
    project.mkdir()
    view = home_view((fake_home,), (project,), {}, (fake_home / "bin",), git_config=True)
    assert view.hidden == (fake_home,)
    assert fake_home / "bin" in view.shown and fake_home / ".cargo" / "bin" in view.shown
    assert view.git_config == fake_home / ".gitconfig"
    assert view.note == ""


def test_a_read_path_into_a_credential_store_or_the_whole_home_is_not_shown(fake_home: Path, tmp_path: Path) -> None:
    make(fake_home / ".ssh" / "id_rsa")
    (fake_home / "keys").symlink_to(fake_home / ".ssh")
    project = tmp_path / "project"
    project.mkdir()
    asked = (fake_home / ".ssh", fake_home / "keys", fake_home / ".ssh" / "id_rsa", fake_home / ".")
    view = home_view((fake_home,), (project,), {}, asked)
    assert not set(asked) & set(view.shown)


def test_a_project_that_is_the_home_or_contains_it_keeps_it_and_says_so(fake_home: Path) -> None:
    for root in (fake_home, fake_home.parent):
        view = home_view((fake_home,), (root,), {})
        assert view.hidden == () and view.shown == ()
        assert "cannot hide the home" in view.note and str(fake_home) in view.note


def test_a_project_inside_the_home_is_no_reason_to_keep_it(fake_home: Path) -> None:
    project = fake_home / "src" / "app"
    project.mkdir(parents=True)
    assert home_view((fake_home,), (project,), {}).hidden == (fake_home,)


def test_the_allow_list_entries_are_well_formed() -> None:
    for toolchain in TOOLCHAINS:
        assert toolchain.place or toolchain.moved_by, toolchain.name
        assert not toolchain.place.startswith(("/", "~")), toolchain.name
        assert all(not part.startswith("/") for part in toolchain.parts), toolchain.name

"""The profile: what is mounted how, computed from real folders (no bwrap needed)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from engine.sandbox.base import SandboxError
from engine.sandbox.options import SandboxOptions
from engine.sandbox.profile import Mount, Profile, ProfileInputs, build_profile
from engine.sandbox.scan import ProjectScanner
from tests.engine.sandbox.helpers import make_repo


def _profile(
    project: Path, home: Path, options: SandboxOptions | None = None, *, hive: tuple[Path, ...] = ()
) -> Profile:
    options = options or SandboxOptions()
    roots = (project, *options.writable_roots) if options.mode == "workspace-write" else (project,)
    return build_profile(
        ProfileInputs(
            options=options,
            cwd=project,
            project=project,
            homes=(home,),
            hive_dirs=hive,
            scans=tuple(ProjectScanner(root).scan() for root in roots),
        )
    )


def test_a_typical_project(project: Path, home: Path) -> None:
    git = project / ".git"
    profile = _profile(project, home)
    assert profile.mounts == (
        Mount("private", Path("/tmp")),
        Mount("private", Path("/run")),
        Mount("home", home),
        Mount("writable", project),
        Mount("pin", git),
        Mount("read-only", project / ".ironhive"),
        Mount("read-only", git / "hooks"),
        Mount("read-only", git / "config", directory=False),
        Mount("hide", project / ".env", directory=False),
        Mount("hide", project / "secrets"),
    )
    assert profile.watch == (git / "commondir",)
    assert profile.truncated is False


def test_missing_ironhive_and_hooks_are_guarded(base: Path, home: Path) -> None:
    project = make_repo(base / "p")
    (project / ".git" / "hooks").rename(project / "old-hooks")
    guards = _profile(project, home).paths("guard")
    assert guards == (project / ".ironhive", project / ".git" / "hooks")


def test_a_symlinked_project_is_mounted_at_its_real_path(base: Path, project: Path, home: Path) -> None:
    link = base / "link"
    link.symlink_to(project)
    assert _profile(link, home).paths("writable") == (project,)


def test_heavy_folders_are_not_walked(project: Path, home: Path) -> None:
    (project / "node_modules" / "pkg").mkdir(parents=True)
    (project / "node_modules" / "pkg" / ".env").write_text("x")
    make_repo(project / ".venv" / "src")
    profile = _profile(project, home)
    assert not any("node_modules" in str(path) or ".venv" in str(path) for path in map(str, profile.paths("hide")))
    assert profile.paths("pin") == (project / ".git",)


def test_a_secret_behind_a_symlink_is_hidden_where_it_really_is(project: Path, home: Path, outside: Path) -> None:
    (project / ".env").unlink()
    (project / ".env").symlink_to(outside / "file.txt")
    assert Mount("hide", outside / "file.txt", directory=False) in _profile(project, home).mounts


def test_a_virtualenv_named_env_is_not_hidden(project: Path, home: Path) -> None:
    (project / ".envs" / "bin").mkdir(parents=True)
    assert project / ".envs" not in _profile(project, home).paths("hide")


def test_read_only_mode_writes_nothing_and_protects_nothing(project: Path, home: Path) -> None:
    profile = _profile(project, home, SandboxOptions(mode="read-only"))
    assert {mount.kind for mount in profile.mounts} == {"private", "home", "hide"}
    assert profile.watch == ()


def test_a_project_under_a_private_folder_is_shown_again(tmp_path: Path, home: Path) -> None:
    project = make_repo(tmp_path / "p")
    assert _profile(project, home, SandboxOptions(mode="read-only")).paths("visible") == (project,)
    assert _profile(project, home).paths("writable") == (project,)


def test_hidden_paths_under_a_private_folder_are_left_out(tmp_path: Path, project: Path) -> None:
    tmp_home = tmp_path / "home"
    (tmp_home / ".ssh").mkdir(parents=True)
    assert tmp_home / ".ssh" not in _profile(project, tmp_home).paths("hide")


def test_extra_writable_roots_and_hives_folders(project: Path, home: Path, outside: Path, base: Path) -> None:
    hive = base / "hive"
    (hive / "config").mkdir(parents=True)
    missing = base / "missing"
    profile = _profile(project, home, SandboxOptions(writable_roots=(outside, missing)), hive=(hive / "config",))
    assert profile.paths("writable") == (project, outside)
    assert hive / "config" in profile.paths("hide")


def test_nothing_is_mounted_inside_a_hidden_folder(project: Path, home: Path) -> None:
    (project / ".ironhive" / "secrets").mkdir()
    (project / ".ironhive" / "secrets" / "token").write_text("x")
    (project / "secrets" / "sub").mkdir()
    (project / "secrets" / "sub" / ".env").write_text("x")
    hidden = _profile(project, home).paths("hide")
    assert project / "secrets" in hidden and project / "secrets" / "sub" / ".env" not in hidden
    assert project / ".ironhive" / "secrets" in hidden


def test_a_project_inside_a_hidden_folder_is_an_error(home: Path) -> None:
    inside = home / ".aws" / "project"
    inside.mkdir()
    with pytest.raises(SandboxError, match="lies inside"):
        _profile(inside, home)


def test_the_walk_is_bounded_and_says_so(project: Path, home: Path) -> None:
    for i in range(30):
        (project / f"d{i}").mkdir()
    assert ProjectScanner(project, max_entries=10).scan().truncated is True
    assert ProjectScanner(project, max_depth=0).scan().truncated is True
    assert ProjectScanner(project).scan().truncated is False


def test_a_repeated_walk_lists_again_a_folder_whose_time_was_set_back(project: Path) -> None:
    (project / "a").mkdir()
    (project / "b").mkdir()
    past = time.time() - 60
    os.utime(project / "b", (past, past))
    scanner = ProjectScanner(project, racy_ns=0)  # trust every listing at once
    _settled(project)
    scanner.scan()
    (project / "a" / ".env").write_text("new secret")  # a's times move: found next time
    (project / "b" / ".env").write_text("hidden?")
    os.utime(project / "b", (past, past))  # b's modification time set back as it was; its change time moved
    found = scanner.scan().paths("secret_file")
    assert {project / "a" / ".env", project / "b" / ".env"} <= set(found)


def test_a_repeated_walk_finds_what_a_fresh_one_finds(project: Path) -> None:
    scanner = ProjectScanner(project)
    first = scanner.scan()
    (project / "deep" / "er").mkdir(parents=True)
    (project / "deep" / "er" / "AGENTS.md").write_text("x")
    again = scanner.scan()
    assert again.findings == ProjectScanner(project).scan().findings
    assert (("steering", project / "deep" / "er" / "AGENTS.md")) in again.findings
    assert again.findings != first.findings
    assert scanner.latest() == again


def _settled(folder: Path) -> None:
    """Wait until the file system's clock has moved past the last change of every folder in ``folder``.

    File times tick coarsely: a change right after a listing could keep the same change time.
    """
    newest = max(os.stat(path).st_ctime_ns for path in (folder, *folder.rglob("*")) if path.is_dir())
    probe = folder.parent / f".{folder.name}.probe"
    while True:
        probe.write_text("x")
        if os.stat(probe).st_ctime_ns > newest:
            probe.unlink()
            return


def test_a_writable_root_that_is_a_git_folder_keeps_its_hooks_and_config_read_only(
    base: Path, project: Path, home: Path
) -> None:
    main = make_repo(base / "main")
    profile = _profile(project, home, SandboxOptions(writable_roots=(main / ".git",)))
    assert main / ".git" in profile.paths("writable")
    assert {main / ".git" / "hooks", main / ".git" / "config"} <= set(profile.paths("read-only"))


def test_where_the_home_cannot_be_hidden_its_credential_stores_still_are(project: Path, home: Path) -> None:
    options = SandboxOptions()
    inputs = ProfileInputs(
        options=options,
        cwd=project,
        project=project,
        homes=(home,),
        hive_dirs=(),
        scans=(ProjectScanner(project).scan(),),
        hide_home=False,  # macOS: nothing can be mounted over the home
    )
    profile = build_profile(inputs)
    assert profile.paths("home") == ()
    assert {home / ".ssh", home / ".aws", home / ".netrc", home / ".config" / "gh"} <= set(profile.paths("hide"))


def test_the_hidden_home_shows_toolchains_read_paths_and_the_filtered_git_config(
    project: Path, home: Path, base: Path
) -> None:
    (home / ".cargo" / "bin").mkdir(parents=True)
    (home / "bin").mkdir()
    copy = base / "gitconfig-copy"
    copy.write_text("[user]\n\tname = Me\n")
    inputs = ProfileInputs(
        options=SandboxOptions(read_paths=(home / "bin",)),
        cwd=project,
        project=project,
        homes=(home,),
        hive_dirs=(),
        scans=(ProjectScanner(project).scan(),),
        git_config=copy,
    )
    mounts = build_profile(inputs).mounts
    kinds = [mount.kind for mount in mounts]
    assert kinds.index("home") < kinds.index("shown") < kinds.index("writable")
    assert {m.path for m in mounts if m.kind == "shown"} == {home / ".cargo" / "bin", home / "bin"}
    assert Mount("read-only", home / ".gitconfig", directory=False, source=copy) in mounts

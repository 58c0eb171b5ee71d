"""A program a command plants never runs outside the sandbox, and hive's own install cannot be changed by one."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.sandbox.bwrap import bundled_bwrap, bwrap_candidates
from engine.sandbox.options import SandboxOptions
from engine.sandbox.profile import Mount, ProfileInputs, build_profile
from engine.sandbox.scan import ProjectScanner
from tests.engine.sandbox.helpers import Runner, make_repo
from tests.support.safe_folder import make_folder, program, safe_folder


@pytest.fixture
def safe() -> Iterator[Path]:
    with safe_folder() as folder:
        yield folder


def plant(name: str, canary: Path) -> str:
    """A command that puts a ``name`` into the project's ``.venv/bin`` that says so and leaves a canary."""
    script = f"#!/bin/sh\\necho planted {name} ran\\necho {name} >> {canary}\\n"
    return f"mkdir -p .venv/bin && printf '{script}' > .venv/bin/{name} && chmod 755 .venv/bin/{name}"


def test_a_bwrap_and_a_bash_left_in_the_project_by_an_earlier_session_do_not_run(
    safe: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_repo(safe / "project")
    outside = make_folder(safe / "outside")
    canary = outside / "canary"
    run = Runner(project, safe / "data")  # probes bwrap before anything is planted, as a test helper would
    for name in ("bwrap", "bash"):
        program(project / ".venv" / "bin", name, f"echo planted {name} ran\necho {name} >> {canary}")
    monkeypatch.setenv("PATH", f"{project / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}")

    result = run(f"echo inside; touch {outside}/escaped")

    assert "inside" in result.output and "planted" not in result.output
    assert "Read-only file system" in result.output
    assert not (outside / "escaped").exists() and not canary.exists()


def test_a_bwrap_and_a_bash_planted_by_one_command_do_not_run_the_next(
    safe: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_repo(safe / "project")
    outside = make_folder(safe / "outside")
    canary = outside / "canary"
    run = Runner(project, safe / "data")
    monkeypatch.setenv("PATH", f"{project / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}")

    planted = run(f"{plant('bwrap', canary)} && {plant('bash', canary)} && echo planted-both")
    after = run(f"echo second; touch {outside}/escaped")

    assert planted.success is True and "planted-both" in planted.output
    assert (project / ".venv" / "bin" / "bwrap").is_file()
    assert "second" in after.output and "planted" not in after.output
    assert "Read-only file system" in after.output
    assert not (outside / "escaped").exists() and not canary.exists()
    assert project / ".venv" / "bin" / "bwrap" not in bwrap_candidates((project,))


def test_hives_install_inside_a_writable_root_is_mounted_read_only(safe: Path, tmp_path: Path) -> None:
    project = make_repo(safe / "project")
    make_folder(project / ".venv" / "lib")
    bwrap = program(project / "vendor", "bwrap")
    elsewhere = make_folder(safe / "elsewhere")
    inputs = ProfileInputs(
        options=SandboxOptions(),
        cwd=project,
        project=project,
        homes=(tmp_path,),
        hive_dirs=(),
        scans=(ProjectScanner(project).scan(),),
        hive_install=(project / ".venv" / "lib", project / ".venv", bwrap, elsewhere, safe),
    )

    read_only = build_profile(inputs).paths("read-only")

    assert project / ".venv" in read_only
    assert project / ".venv" / "lib" not in read_only  # inside the .venv mount already
    assert bwrap in read_only
    assert Mount("read-only", bwrap, directory=False) in build_profile(inputs).mounts
    assert elsewhere not in read_only  # not writable anyway
    assert safe not in read_only  # it holds the project: binding it read-only would take the project away


def test_the_bundled_bwrap_cannot_be_replaced_from_a_writable_root_around_it(safe: Path) -> None:
    bundled = bundled_bwrap()
    if bundled is None:
        pytest.skip("no bundled bwrap in this install")
    project = make_repo(safe / "project")
    folder = bundled.resolve().parent
    run = Runner(project, safe / "data", SandboxOptions(writable_roots=(folder,)))

    result = run(f"[ -w {folder} ] && echo folder-writable; [ -w {bundled.resolve()} ] || echo bwrap-read-only")

    assert "folder-writable" in result.output and "bwrap-read-only" in result.output

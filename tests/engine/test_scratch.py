"""The scratch folder is written only while it is a plain folder of the project: never through a link."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from engine.scratch import data_scratch_dir, open_scratch_file
from engine.tools.output import CommandOutput


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root.resolve()


def big_output(spill_dir: Path, shown_from: Path) -> tuple[CommandOutput, str]:
    output = CommandOutput(spill_dir, budget=100, shown_from=shown_from)

    async def feed() -> None:
        await output.add(b"x" * 500)
        await output.close()

    asyncio.run(feed())
    return output, output.render()


def test_a_plain_scratch_folder_is_made_private_and_used(project: Path) -> None:
    output, text = big_output(project / ".hive" / "outputs", project)
    assert output.spill_path is not None and output.spill_path.parent == project / ".hive" / "outputs"
    assert "the full output is saved in .hive/outputs/" in text
    assert stat.S_IMODE(output.spill_path.stat().st_mode) == 0o600
    assert (project / ".hive" / "outputs" / ".gitignore").read_text() == "*\n"


@pytest.mark.parametrize("linked", [".hive", ".hive/outputs"])
def test_a_link_in_the_scratch_path_is_never_written_through(project: Path, tmp_path: Path, linked: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / ".hive").mkdir(exist_ok=True) if linked != ".hive" else None
    (project / linked).symlink_to(outside, target_is_directory=True)

    output, text = big_output(project / ".hive" / "outputs", project)

    assert list(outside.iterdir()) == []
    assert output.spill_path is not None and output.spill_path.is_relative_to(data_scratch_dir(project))
    assert "is not a plain folder of the project" in text and str(output.spill_path) in text


def test_a_file_planted_in_place_of_the_output_is_never_overwritten(project: Path, tmp_path: Path) -> None:
    folder = project / ".hive" / "outputs"
    folder.mkdir(parents=True)
    target = tmp_path / "victim.txt"
    target.write_text("keep me")
    (folder / "same.log").symlink_to(target)
    with pytest.raises(FileExistsError):
        open_scratch_file(folder, "same.log")
    assert target.read_text() == "keep me"
    assert os.path.islink(folder / "same.log")

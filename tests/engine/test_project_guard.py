"""The project folder's guard and write_file's parent folders: a removed project is never made again."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from engine.events import ToolCall, TurnRecord
from engine.project_guard import GuardedProject, ProjectFolderGone, ProjectGuard
from engine.tools.base import ToolContext
from engine.tools.files import WriteFileTool
from engine.tools.registry import ToolRegistry


def write(ctx: ToolContext, path: str) -> tuple[bool, str]:
    result = asyncio.run(WriteFileTool().run({"path": path, "content": "x"}, ctx))
    return bool(result.success), result.output


def test_write_file_does_not_make_a_removed_working_directory_again(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    ctx = ToolContext(cwd=project, data_dir=tmp_path / "data")
    shutil.rmtree(project)

    worked, output = write(ctx, "src/deep/a.txt")

    assert not worked
    assert f"{project} no longer exists" in output
    assert not project.exists()


def test_write_file_still_makes_missing_folders_inside_the_working_directory(tmp_path: Path) -> None:
    worked, output = write(ToolContext(cwd=tmp_path, data_dir=tmp_path / "data"), "src/deep/a.txt")
    assert worked, output
    assert (tmp_path / "src" / "deep" / "a.txt").read_text() == "x"


def test_the_guard_refuses_calls_once_the_folder_is_replaced_and_stops_after_the_round(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    guard = ProjectGuard(project)
    tools = GuardedProject(ToolRegistry([WriteFileTool()]), guard)
    call = ToolCall(id="c1", name="write_file", arguments={"path": "a.txt", "content": "x"})
    ctx = ToolContext(cwd=project, data_dir=tmp_path / "data")
    record = TurnRecord(index=0, text="", tool_calls=(call,))

    assert asyncio.run(tools.call(call, ctx)).success
    guard.stop_if_gone(record)  # still there: the run goes on
    shutil.rmtree(project)
    project.mkdir()  # the same name, another folder
    refused = asyncio.run(tools.call(call, ctx))

    assert not refused.success
    assert "was removed or replaced during the run" in refused.output
    assert list(project.iterdir()) == []
    with pytest.raises(ProjectFolderGone, match=str(project)):
        guard.stop_if_gone(record)

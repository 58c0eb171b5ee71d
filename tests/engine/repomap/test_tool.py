"""The repo_map tool on its own: what it says for a file, a folder without code, and which files it names."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine.repomap.tool import RepoMapTool
from engine.tools.base import ToolContext, ToolResult
from tests.support.repo_map_fixture import FILES, write_project


def run(path: str, cwd: Path) -> ToolResult:
    return asyncio.run(RepoMapTool().run({"path": path}, ToolContext(cwd=cwd, data_dir=cwd / ".hive")))


def test_a_file_is_refused_with_a_message(tmp_path: Path) -> None:
    write_project(tmp_path)
    result = run("store/models.py", tmp_path)
    assert result.success is False and "store/models.py is not a folder" in result.output


def test_a_folder_without_code_says_so(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n")
    result = run(".", tmp_path)
    assert result.success is True and result.output.startswith("No definitions found in .")


def test_the_result_names_every_mapped_file_and_renders_again_without_hidden_ones(tmp_path: Path) -> None:
    write_project(tmp_path)
    result = run("store", tmp_path)
    assert result.shown_files is not None
    assert set(result.shown_files.paths) == {path for path in FILES if path.startswith("store/")}
    without = result.shown_files.render(frozenset({"store/models.py"}))
    assert "store/models.py" not in without and "class OrderBook" not in without
    assert "store/report.py:" in without and "in 2 files" in without

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.tools.base import FileToolOptions, ToolContext, ToolResult
from engine.tools.files import ReadFileTool, WriteFileTool
from engine.tools.paths import PathOutsideRoots, display_path, resolve_path

Call = Callable[..., ToolResult]


def _with_roots(ctx: ToolContext, *roots: Path) -> ToolContext:
    return ToolContext(cwd=ctx.cwd, data_dir=ctx.data_dir, file_options=FileToolOptions(allowed_roots=roots))


def test_relative_paths_resolve_against_the_working_directory(ctx: ToolContext, workspace: Path) -> None:
    assert resolve_path("src/../a.py", ctx) == workspace.resolve() / "a.py"


def test_tilde_expands_to_the_home_directory(ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert resolve_path("~/notes.txt", ctx) == tmp_path.resolve() / "notes.txt"


def test_without_roots_any_path_is_accepted(ctx: ToolContext, tmp_path: Path) -> None:
    assert resolve_path("../elsewhere/x", ctx) == tmp_path.resolve() / "elsewhere" / "x"


def test_dotdot_escaping_the_allowed_roots_is_refused(ctx: ToolContext, workspace: Path) -> None:
    with pytest.raises(PathOutsideRoots):
        resolve_path("sub/../../outside.txt", _with_roots(ctx, workspace))


def test_a_symlink_leading_outside_the_roots_is_refused(ctx: ToolContext, workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "secret").mkdir()
    (workspace / "link").symlink_to(tmp_path / "secret")
    with pytest.raises(PathOutsideRoots):
        resolve_path("link/key.pem", _with_roots(ctx, workspace))


def test_a_symlink_staying_inside_the_roots_is_accepted(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "real").mkdir()
    (workspace / "alias").symlink_to(workspace / "real")
    assert resolve_path("alias/f", _with_roots(ctx, workspace)) == workspace.resolve() / "real" / "f"


def test_a_root_given_through_a_symlink_still_contains_its_files(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "via").symlink_to(tmp_path / "real")
    assert resolve_path(str(tmp_path / "real" / "f"), _with_roots(ctx, tmp_path / "via")).name == "f"


def test_a_sibling_sharing_the_roots_name_prefix_is_outside(ctx: ToolContext, workspace: Path) -> None:
    sibling = Path(str(workspace) + "-other") / "f"
    with pytest.raises(PathOutsideRoots):
        resolve_path(str(sibling), _with_roots(ctx, workspace))


def test_a_nul_character_is_a_value_error(ctx: ToolContext) -> None:
    with pytest.raises(ValueError, match="NUL"):
        resolve_path("a\0b", ctx)


def test_display_path_is_relative_inside_the_working_directory_and_absolute_outside(
    ctx: ToolContext, workspace: Path, tmp_path: Path
) -> None:
    assert display_path(workspace.resolve() / "src" / "a.py", ctx) == os.path.join("src", "a.py")
    assert display_path(workspace.resolve(), ctx) == "."
    assert display_path(tmp_path.resolve() / "x", ctx) == str(tmp_path.resolve() / "x")


def test_file_tools_report_paths_outside_the_roots_as_error_results(
    call: Call, ctx: ToolContext, workspace: Path, tmp_path: Path
) -> None:
    (tmp_path / "outside.txt").write_text("secret\n")
    limited = _with_roots(ctx, workspace)
    read = call(ReadFileTool(), limited, path="../outside.txt")
    write = call(WriteFileTool(), limited, path="../outside.txt", content="x")
    assert (read.success, write.success) == (False, False)
    assert "outside the allowed directories" in read.output
    assert (tmp_path / "outside.txt").read_text() == "secret\n"

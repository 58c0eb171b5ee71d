from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.tools.base import FileToolOptions, ToolContext, ToolResult
from engine.tools.files import ListDirectoryTool, ReadFileTool, WriteFileTool

Call = Callable[..., ToolResult]


def _numbered(start: int, lines: list[str]) -> list[str]:
    return [f"{number:>6}\t{line}" for number, line in enumerate(lines, start=start)]


# --- read_file -------------------------------------------------------------------------------


def test_read_file_numbers_lines_like_cat_n(call: Call, workspace: Path) -> None:
    (workspace / "a.py").write_text("import os\n\nprint(os.name)\n")
    result = call(ReadFileTool(), path="a.py")
    assert result.success is True
    assert result.output == "\n".join(_numbered(1, ["import os", "", "print(os.name)"]))


def test_read_file_offset_and_limit_select_a_window_and_say_how_to_read_more(call: Call, workspace: Path) -> None:
    (workspace / "f.txt").write_text("".join(f"line {n}\n" for n in range(1, 6)))
    result = call(ReadFileTool(), path="f.txt", offset=2, limit=2)
    assert result.output.splitlines() == [
        *_numbered(2, ["line 2", "line 3"]),
        "(lines 2-3 of 5; use offset=4 to read more)",
    ]


def test_read_file_returns_2000_lines_by_default(call: Call, workspace: Path) -> None:
    (workspace / "big.txt").write_text("".join(f"{n}\n" for n in range(1, 5231)))
    lines = call(ReadFileTool(), path="big.txt").output.splitlines()
    assert len(lines) == 2001
    assert lines[-1] == "(lines 1-2000 of 5230; use offset=2001 to read more)"


def test_read_file_reading_the_last_window_names_its_range(call: Call, workspace: Path) -> None:
    (workspace / "f.txt").write_text("a\nb\nc\n")
    assert call(ReadFileTool(), path="f.txt", offset=3).output.splitlines()[-1] == "(lines 3-3 of 3)"


def test_read_file_cuts_very_long_lines(call: Call, workspace: Path) -> None:
    (workspace / "min.js").write_text("x" * 5000 + "\n")
    output = call(ReadFileTool(), path="min.js").output
    assert output.startswith("     1\t" + "x" * 2000 + "... [line cut: 5000 characters in all]")


def test_read_file_offset_past_the_end_is_an_error(call: Call, workspace: Path) -> None:
    (workspace / "f.txt").write_text("a\nb\n")
    result = call(ReadFileTool(), path="f.txt", offset=10)
    assert result.success is False
    assert "2 lines" in result.output


def test_read_file_says_when_a_file_is_empty(call: Call, workspace: Path) -> None:
    (workspace / "empty").write_text("")
    assert call(ReadFileTool(), path="empty").output == "empty is empty."


def test_read_file_refuses_binary_files_without_showing_content(call: Call, workspace: Path) -> None:
    (workspace / "img.bin").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    result = call(ReadFileTool(), path="img.bin")
    assert result.success is False
    assert result.output.startswith("img.bin is a binary file (16 bytes); its content is not shown.")


def test_read_file_treats_invalid_utf8_as_binary(call: Call, workspace: Path) -> None:
    (workspace / "latin1.txt").write_bytes(b"ok\ncaf\xe9\n")
    result = call(ReadFileTool(), path="latin1.txt")
    assert result.success is False
    assert "not UTF-8" in result.output and "line 2" in result.output


def test_read_file_hides_carriage_returns_and_notes_crlf(call: Call, workspace: Path) -> None:
    (workspace / "dos.txt").write_bytes(b"one\r\ntwo\r\n")
    assert call(ReadFileTool(), path="dos.txt").output.splitlines() == [
        *_numbered(1, ["one", "two"]),
        "(the file uses CRLF line endings; the carriage returns are not shown)",
    ]


def test_read_file_on_a_missing_file_suggests_similar_names(call: Call, workspace: Path) -> None:
    (workspace / "config.yaml").write_text("a: 1\n")
    result = call(ReadFileTool(), path="config.yml")
    assert result.success is False
    assert result.output == "File not found: config.yml. Similar names in that directory: config.yaml"


def test_read_file_on_a_directory_points_to_list_directory(call: Call, workspace: Path) -> None:
    (workspace / "src").mkdir()
    result = call(ReadFileTool(), path="src")
    assert result.success is False and "list_directory" in result.output


def test_read_file_rejects_a_zero_offset_as_invalid_arguments(call: Call, workspace: Path) -> None:
    (workspace / "f.txt").write_text("a\n")
    result = call(ReadFileTool(), path="f.txt", offset=0)
    assert result.success is False and "offset" in result.output


def test_null_for_an_optional_argument_means_the_default(call: Call, workspace: Path) -> None:
    (workspace / "f.txt").write_text("a\n")
    assert call(ReadFileTool(), path="f.txt", offset=None, limit=None).output == "     1\ta"


# --- write_file ------------------------------------------------------------------------------


def test_write_file_creates_the_file_and_its_parent_directories(call: Call, workspace: Path) -> None:
    result = call(WriteFileTool(), path="new/deep/f.txt", content="one\ntwo\n")
    assert result.success is True
    assert result.output == "Wrote 2 lines (8 bytes) to new/deep/f.txt (created a new file)."
    assert (workspace / "new" / "deep" / "f.txt").read_text() == "one\ntwo\n"


def test_write_file_says_when_it_overwrote_a_file(call: Call, workspace: Path) -> None:
    (workspace / "f.txt").write_text("old\n")
    result = call(WriteFileTool(), path="f.txt", content="new")
    assert result.output == "Wrote 1 line (3 bytes) to f.txt (overwrote the existing file)."
    assert (workspace / "f.txt").read_text() == "new"


def test_write_file_keeps_the_permission_bits_of_the_file_it_replaces(call: Call, workspace: Path) -> None:
    script = workspace / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o750)
    call(WriteFileTool(), path="run.sh", content="#!/bin/sh\necho hi\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o750


def test_write_file_gives_new_files_the_usual_umask_permissions(call: Call, workspace: Path) -> None:
    reference = workspace / "reference"
    reference.write_text("")
    call(WriteFileTool(), path="made.txt", content="x")
    assert stat.S_IMODE((workspace / "made.txt").stat().st_mode) == stat.S_IMODE(reference.stat().st_mode)


def test_write_file_replaces_the_file_instead_of_rewriting_it_in_place(call: Call, workspace: Path) -> None:
    target = workspace / "f.txt"
    target.write_text("old\n")
    os.link(target, workspace / "hardlink")
    call(WriteFileTool(), path="f.txt", content="new\n")
    assert target.read_text() == "new\n"
    assert (workspace / "hardlink").read_text() == "old\n"


def test_write_file_leaves_no_temporary_files_behind(call: Call, workspace: Path) -> None:
    (workspace / "a.txt").write_text("1")
    call(WriteFileTool(), path="a.txt", content="2")
    call(WriteFileTool(), path="b.txt", content="3")
    (workspace / "dir").mkdir()
    assert call(WriteFileTool(), path="dir", content="4").success is False
    assert sorted(p.name for p in workspace.iterdir()) == ["a.txt", "b.txt", "dir"]


def test_write_file_calls_the_interceptor_with_the_resolved_path_and_content(
    call: Call, ctx: ToolContext, workspace: Path
) -> None:
    seen: list[tuple[Path, str]] = []
    options = FileToolOptions(write_interceptor=lambda path, content: seen.append((path, content)))
    context = ToolContext(cwd=ctx.cwd, data_dir=ctx.data_dir, file_options=options)
    call(WriteFileTool(), context, path="./x/../f.txt", content="hello")
    assert seen == [(workspace.resolve() / "f.txt", "hello")]


def test_an_interceptor_that_raises_refuses_the_write(call: Call, ctx: ToolContext, workspace: Path) -> None:
    def refuse(path: Path, content: str) -> None:
        raise PermissionError("checkpoint store is full")

    context = ToolContext(cwd=ctx.cwd, data_dir=ctx.data_dir, file_options=FileToolOptions(write_interceptor=refuse))
    (workspace / "f.txt").write_text("keep\n")
    result = call(WriteFileTool(), context, path="f.txt", content="lost")
    assert result.success is False
    assert result.output == "Write to f.txt refused: checkpoint store is full"
    assert (workspace / "f.txt").read_text() == "keep\n"
    assert sorted(p.name for p in workspace.iterdir()) == ["f.txt"]


def test_write_file_reports_permission_denied_as_an_error_result(call: Call, workspace: Path) -> None:
    locked = workspace / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("permissions are not enforced for this user (root)")
        result = call(WriteFileTool(), path="locked/f.txt", content="x")
        assert result.success is False and "Permission denied" in result.output
    finally:
        locked.chmod(0o700)


# --- list_directory --------------------------------------------------------------------------


def test_list_directory_shows_directories_first_with_a_slash_then_files(call: Call, workspace: Path) -> None:
    for name in ("b_dir", "a_dir"):
        (workspace / name).mkdir()
    for name in ("z.txt", ".env.example", "m.py"):
        (workspace / name).write_text("")
    assert call(ListDirectoryTool()).output.splitlines() == [
        "a_dir/",
        "b_dir/",
        ".env.example",
        "m.py",
        "z.txt",
        "(2 directories, 3 files)",
    ]


def test_list_directory_skips_git_and_gitignored_entries(call: Call, workspace: Path) -> None:
    (workspace / ".git").mkdir()
    (workspace / ".gitignore").write_text("build/\n*.log\n")
    (workspace / "build").mkdir()
    (workspace / "src").mkdir()
    (workspace / "debug.log").write_text("")
    assert call(ListDirectoryTool(), path=".").output.splitlines() == [
        "src/",
        ".gitignore",
        "(1 directory, 1 file; 2 ignored by .gitignore not shown)",
    ]


def test_list_directory_shows_where_symlinks_point(call: Call, workspace: Path) -> None:
    (workspace / "target.txt").write_text("")
    (workspace / "alias.txt").symlink_to("target.txt")
    assert "alias.txt -> target.txt" in call(ListDirectoryTool()).output


def test_list_directory_caps_long_listings(call: Call, workspace: Path) -> None:
    for n in range(510):
        (workspace / f"f{n:03}").write_text("")
    lines = call(ListDirectoryTool()).output.splitlines()
    assert len(lines) == 501
    assert lines[-1] == "(showing the first 500 of 510 entries: 0 directories, 510 files)"


def test_list_directory_on_a_file_or_missing_path_is_an_error(call: Call, workspace: Path) -> None:
    (workspace / "f.txt").write_text("")
    assert call(ListDirectoryTool(), path="f.txt").success is False
    missing = call(ListDirectoryTool(), path="nope")
    assert (missing.success, missing.output) == (False, "Directory not found: nope")


def test_list_directory_of_an_empty_directory_says_so(call: Call, workspace: Path) -> None:
    (workspace / "empty").mkdir()
    assert call(ListDirectoryTool(), path="empty").output == "empty is empty."

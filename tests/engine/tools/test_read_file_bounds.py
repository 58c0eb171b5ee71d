"""read_file reads the window it returns, never the whole file; special files are refused, never opened.

The memory bounds are measured with tracemalloc (what Python allocates while the tool runs), so a
reader that held the whole file, or one whole line of it, fails them. A FIFO test that regressed
would block in open(); pytest-timeout ends it.
"""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.tools.base import ToolResult
from engine.tools.edit import EditFileTool
from engine.tools.edit_large import MAX_EDIT_BYTES
from engine.tools.files import ReadFileTool
from engine.tools.read_window import COUNT_UP_TO

Call = Callable[..., ToolResult]

GB = 1024**3


def _sparse(path: Path, head: bytes, size: int) -> Path:
    with path.open("wb") as file:
        file.write(head)
        file.truncate(size)
    return path


def _peak_bytes(action: Callable[[], ToolResult]) -> tuple[ToolResult, int]:
    tracemalloc.start()
    try:
        result = action()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_five_line_read_of_a_sparse_gigabyte_reads_five_lines(call: Call, workspace: Path) -> None:
    text = "".join(f"line {n}\n" for n in range(1, 2001))  # more than the binary sniff's 8 KiB of text
    _sparse(workspace / "huge.log", text.encode(), GB)

    result, peak = _peak_bytes(lambda: call(ReadFileTool(), path="huge.log", limit=5))

    assert result.output.splitlines() == [
        *(f"{n:>6}\tline {n}" for n in range(1, 6)),
        "(lines 1-5; more follow: use offset=6 to read more)",
    ]
    assert peak < 5 * 1024 * 1024


def test_a_window_reaching_the_sparse_part_is_refused_as_binary_without_reading_it(call: Call, workspace: Path) -> None:
    text = "".join(f"line {n}\n" for n in range(1, 2001))
    _sparse(workspace / "huge.log", text.encode(), GB)

    result, peak = _peak_bytes(lambda: call(ReadFileTool(), path="huge.log", offset=1999, limit=5))

    assert result.success is False
    assert result.output.startswith(
        f"huge.log is a binary file ({GB} bytes, a NUL byte on line 2001); its content is not shown."
    )
    assert peak < 5 * 1024 * 1024


def test_a_line_of_many_megabytes_is_cut_as_it_is_read(call: Call, workspace: Path) -> None:
    (workspace / "min.js").write_bytes(b"x" * (8 * 1024 * 1024) + b"\nsecond\n")

    result, peak = _peak_bytes(lambda: call(ReadFileTool(), path="min.js", limit=1))

    assert result.output.splitlines() == [
        "     1\t" + "x" * 2000 + f"... [line cut: {8 * 1024 * 1024} characters in all]",
        "(lines 1-1; more follow: use offset=2 to read more)",
    ]
    assert peak < 2 * 1024 * 1024


def test_a_small_file_still_gives_its_number_of_lines(call: Call, workspace: Path) -> None:
    (workspace / "f.txt").write_text("".join(f"{n}\n" for n in range(1, 11)))

    assert call(ReadFileTool(), path="f.txt", limit=3).output.splitlines()[-1] == (
        "(lines 1-3 of 10; use offset=4 to read more)"
    )


def test_the_last_window_of_a_large_file_knows_the_total_it_reached(call: Call, workspace: Path) -> None:
    (workspace / "big.txt").write_text("y" * 100 + "\n" + "".join(f"{n}\n" for n in range(2, 600_001)))

    lines = call(ReadFileTool(), path="big.txt", offset=599_999).output.splitlines()

    assert lines == ["599999\t599999", "600000\t600000", "(lines 599999-600000 of 600000)"]


def test_a_fifo_is_an_error_not_a_hang(call: Call, workspace: Path) -> None:
    os.mkfifo(workspace / "pipe")

    result = call(ReadFileTool(), path="pipe")

    assert (result.success, result.output) == (False, "pipe was not read: it is a FIFO, not a regular file.")


def test_a_link_to_proc_self_environ_is_refused(call: Call, workspace: Path) -> None:
    (workspace / "env.txt").symlink_to("/proc/self/environ")

    result = call(ReadFileTool(), path="env.txt")

    assert result.success is False and "under /proc" in result.output


def test_a_link_inside_the_workspace_reads_as_before(call: Call, workspace: Path) -> None:
    (workspace / "real.txt").write_text("content\n")
    (workspace / "alias.txt").symlink_to("real.txt")

    assert call(ReadFileTool(), path="alias.txt").output == "     1\tcontent"


def test_edit_file_refuses_a_fifo_and_a_file_too_large_to_hold(call: Call, workspace: Path) -> None:
    os.mkfifo(workspace / "pipe")
    _sparse(workspace / "huge.txt", b"old\n", MAX_EDIT_BYTES + 1)

    fifo = call(EditFileTool(), path="pipe", old_string="a", new_string="b")
    huge = call(EditFileTool(), path="huge.txt", old_string="old", new_string="new")

    assert (fifo.success, fifo.output) == (
        False,
        "pipe was not edited: it is a FIFO, not a regular file; edit_file changes regular text files.",
    )
    assert (huge.success, huge.output) == (
        False,
        "huge.txt was not edited: it is larger than 1024 MiB; edit_file changes files up to that size (each edit "
        "rewrites the whole file).",
    )
    assert (workspace / "huge.txt").stat().st_size == MAX_EDIT_BYTES + 1


def _numbered_file(path: Path, lines: int, last_newline: bool = True) -> Path:
    text = "".join(f"row {n:07d} of a file larger than read_file counts to its end\n" for n in range(1, lines + 1))
    path.write_text(text if last_newline else text.removesuffix("\n"))
    assert path.stat().st_size > COUNT_UP_TO
    return path


def test_a_window_in_the_middle_of_a_large_file_is_numbered_as_its_lines(call: Call, workspace: Path) -> None:
    _numbered_file(workspace / "big.log", 40_000)

    result, peak = _peak_bytes(lambda: call(ReadFileTool(), path="big.log", offset=23_457, limit=3))

    assert result.output.splitlines() == [
        *(f"{n:>6}\trow {n:07d} of a file larger than read_file counts to its end" for n in (23_457, 23_458, 23_459)),
        "(lines 23457-23459; more follow: use offset=23460 to read more)",
    ]
    assert peak < 1024 * 1024


@pytest.mark.parametrize("last_newline", [True, False])
def test_an_offset_past_the_end_of_a_large_file_says_how_many_lines_it_has(
    call: Call, workspace: Path, last_newline: bool
) -> None:
    _numbered_file(workspace / "big.log", 40_000, last_newline)

    last = call(ReadFileTool(), path="big.log", offset=40_000, limit=5)
    past = call(ReadFileTool(), path="big.log", offset=40_001)

    assert last.output.splitlines() == [
        " 40000\trow 0040000 of a file larger than read_file counts to its end",
        "(lines 40000-40000 of 40000)",
    ]
    assert (past.success, past.output) == (False, "offset=40001 is past the end of big.log, which has 40000 lines.")

"""edit_file on a large file streams it: the same answers and bytes as the whole-text path, never a whole copy.

The streaming path is reached through the real tool with a lowered threshold (``large_file_bytes``)
and tiny chunks, so every chunk border is crossed by matches, characters and line endings. One test
edits a real file over the default threshold and measures what Python allocates (tracemalloc).
"""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.tools.base import ToolResult
from engine.tools.edit import EditFileTool
from engine.tools.edit_large import LARGE_FILE_BYTES

Call = Callable[..., ToolResult]

STREAMING = EditFileTool(large_file_bytes=16, chunk_bytes=7)
WHOLE = EditFileTool()
LINES = "".join(f"line {n}: {'é' * (n % 5)}value = {n * 7}\n" for n in range(1, 120))


def _both(call: Call, workspace: Path, content: bytes, **edit: object) -> tuple[ToolResult, ToolResult]:
    """The same edit by the whole-text tool and the streaming one, each on its own copy; the files must agree."""
    (workspace / "whole.txt").write_bytes(content)
    (workspace / "large.txt").write_bytes(content)
    whole = call(WHOLE, path="whole.txt", **edit)
    large = call(STREAMING, path="large.txt", **edit)
    assert (workspace / "large.txt").read_bytes() == (workspace / "whole.txt").read_bytes()
    return whole, large


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("line 60: value = 420\n", "line 60: changed\n"),
        ("line 1: évalue = 7\n", "first\nsecond\n"),
        ("line 119: éééévalue = 833\n", ""),
        ("value = 413\nline 60", "value = 413\n\n\nline 60"),
        ("line 30: ", "LINE 30: "),
    ],
    ids=["one-line", "first-line-grows", "last-line-deleted", "across-lines", "inside-a-line"],
)
def test_a_streamed_edit_answers_and_writes_as_the_whole_text_edit(
    call: Call, workspace: Path, old: str, new: str
) -> None:
    whole, large = _both(call, workspace, LINES.encode(), old_string=old, new_string=new)

    assert whole.success is True
    assert large.output.replace("large.txt", "whole.txt") == whole.output


def test_a_crlf_file_is_matched_and_written_with_crlf(call: Call, workspace: Path) -> None:
    content = LINES.replace("\n", "\r\n").encode()

    whole, large = _both(call, workspace, content, old_string="line 5: value = 35\nline 6", new_string="five\nsix")

    assert large.output.replace("large.txt", "whole.txt") == whole.output
    assert "(matched after converting line endings to the file's CRLF)" in large.output
    assert b"five\r\nsix: \xc3\xa9value = 42\r\n" in (workspace / "large.txt").read_bytes()


def test_an_ambiguous_old_string_is_refused_with_the_lines_it_is_on(call: Call, workspace: Path) -> None:
    whole, large = _both(call, workspace, LINES.encode(), old_string="value = 21", new_string="x")

    assert large.success is False
    assert large.output.replace("large.txt", "whole.txt") == whole.output
    assert "occurs 3 times" in large.output and "lines 3, 30, 31" in large.output


def test_replace_all_replaces_matches_that_straddle_chunk_borders(call: Call, workspace: Path) -> None:
    content = ("xx" + "needle-" * 40 + "\n") * 3
    for chunk in (3, 4, 5, 6, 7, 8):
        path = workspace / f"chunks-{chunk}.txt"
        path.write_text(content)
        tool = EditFileTool(large_file_bytes=16, chunk_bytes=chunk)

        result = call(tool, path=path.name, old_string="needle-", new_string="N", replace_all=True)

        assert result.output.splitlines()[0] == f"Edited {path.name}: replaced 120 occurrences."
        assert path.read_text() == content.replace("needle-", "N")


def test_a_streamed_edit_keeps_the_files_mode(call: Call, workspace: Path) -> None:
    path = workspace / "large.txt"
    path.write_text(LINES)
    path.chmod(0o640)

    result = call(STREAMING, path="large.txt", old_string="line 2:", new_string="line two:")

    assert result.success is True
    assert (path.stat().st_mode & 0o777) == 0o640
    assert [p.name for p in workspace.iterdir()] == ["large.txt"]  # no temporary file left


def test_a_miss_points_to_grep_instead_of_scanning_for_the_closest_region(call: Call, workspace: Path) -> None:
    (workspace / "large.txt").write_text(LINES)

    result = call(STREAMING, path="large.txt", old_string="line 60: value = 999\n", new_string="x")

    assert (result.success, result.output) == (
        False,
        "old_string was not found in large.txt. The file is large (0.0 MB), so the closest region is not searched. "
        "Use grep_files to find where the text is, then read_file around it. Copy old_string exactly as the file "
        "has it.",
    )
    assert (workspace / "large.txt").read_text() == LINES


@pytest.mark.parametrize(
    "content",
    [
        LINES.encode() + b"tail \x00 after\n",
        LINES.encode()[:-3] + b"\xff\n",
        LINES.encode() + "end é".encode()[:-1],
    ],
    ids=["nul-at-the-end", "invalid-byte", "cut-character-at-the-end"],
)
def test_a_file_that_is_not_text_is_refused_as_the_whole_text_path_refuses_it(
    call: Call, workspace: Path, content: bytes
) -> None:
    whole, large = _both(call, workspace, content, old_string="line 3:", new_string="x")

    assert large.success is False
    assert large.output.replace("large.txt", "whole.txt") == whole.output
    assert (workspace / "large.txt").read_bytes() == content


def test_characters_split_by_chunk_borders_are_text(call: Call, workspace: Path) -> None:
    content = ("é" * 50 + "\n").encode() * 4  # two-byte characters across every odd-sized chunk's border

    whole, large = _both(call, workspace, content, old_string="é\né", new_string="e\ne", replace_all=True)

    assert large.output.replace("large.txt", "whole.txt") == whole.output
    assert large.output.startswith("Edited large.txt: replaced 3 occurrences.")


def test_one_line_of_a_file_over_the_threshold_is_edited_without_copying_the_file(call: Call, workspace: Path) -> None:
    line_count = LARGE_FILE_BYTES // 40 + 1000
    path = workspace / "big.log"
    with path.open("w") as file:
        file.writelines(f"{n:08d} some log text for line {n:08d}\n" for n in range(1, line_count + 1))
    size = path.stat().st_size
    assert size > LARGE_FILE_BYTES
    middle = line_count // 2

    tracemalloc.start()
    try:
        result = call(WHOLE, path="big.log", old_string=f"for line {middle:08d}\n", new_string="EDITED\n")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert result.output.splitlines() == [
        "Edited big.log: replaced 1 occurrence.",
        *(f"{n:>6}\t{n:08d} some log text for line {n:08d}" for n in range(middle - 3, middle)),
        f"{middle:>6}\t{middle:08d} some log text EDITED",
        *(f"{n:>6}\t{n:08d} some log text for line {n:08d}" for n in range(middle + 1, middle + 4)),
    ]
    assert peak < size // 3
    assert os.path.getsize(path) == size - len(f"for line {middle:08d}") + len("EDITED")
    with path.open() as file:
        assert [line for n, line in enumerate(file, 1) if n in (middle - 1, middle, middle + 1)] == [
            f"{middle - 1:08d} some log text for line {middle - 1:08d}\n",
            f"{middle:08d} some log text EDITED\n",
            f"{middle + 1:08d} some log text for line {middle + 1:08d}\n",
        ]

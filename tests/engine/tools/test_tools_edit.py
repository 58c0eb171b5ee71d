from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from engine.tools.base import FileToolOptions, ToolContext, ToolResult
from engine.tools.edit import EditFileTool

Call = Callable[..., ToolResult]

SOURCE = """def greet(name):
    message = "Hello, " + name
    print(message)


def main():
    greet("world")
"""


def _edit(call: Call, **arguments: object) -> ToolResult:
    return call(EditFileTool(), path="app.py", **arguments)


def test_edit_replaces_a_unique_string_and_shows_the_changed_region(call: Call, workspace: Path) -> None:
    (workspace / "app.py").write_text(SOURCE)
    result = _edit(call, old_string="    print(message)\n", new_string="    print(message)\n    return message\n")
    assert result.success is True
    assert result.output.splitlines() == [
        "Edited app.py: replaced 1 occurrence.",
        "     1\tdef greet(name):",
        '     2\t    message = "Hello, " + name',
        "     3\t    print(message)",
        "     4\t    return message",
        "     5\t",
        "     6\t",
        "     7\tdef main():",
    ]
    assert (workspace / "app.py").read_text() == SOURCE.replace(
        "print(message)\n", "print(message)\n    return message\n"
    )


def test_edit_refuses_an_ambiguous_string_and_lists_where_it_occurs(call: Call, workspace: Path) -> None:
    (workspace / "app.py").write_text("x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n")
    result = _edit(call, old_string="x = 1", new_string="x = 2")
    assert result.success is False
    assert "occurs 3 times" in result.output and "lines 1, 3, 5" in result.output
    assert (workspace / "app.py").read_text() == "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n"


def test_replace_all_replaces_every_occurrence(call: Call, workspace: Path) -> None:
    (workspace / "app.py").write_text("old()\nold()\nkeep()\n")
    result = _edit(call, old_string="old", new_string="new", replace_all=True)
    assert result.output.startswith("Edited app.py: replaced 2 occurrences.")
    assert (workspace / "app.py").read_text() == "new()\nnew()\nkeep()\n"


def test_a_missing_string_shows_the_closest_region_and_suggests_a_stale_read(call: Call, workspace: Path) -> None:
    (workspace / "app.py").write_text(SOURCE)
    result = _edit(call, old_string='    message = "Hi, " + name\n    print(message)\n', new_string="pass\n")
    assert result.success is False
    lines = result.output.splitlines()
    assert lines[0].startswith("old_string was not found in app.py. The closest region is lines 2-3")
    assert "changed since you read it" in lines[0]
    assert lines[1:] == ['     2\t    message = "Hello, " + name', "     3\t    print(message)"]


def test_a_string_differing_only_in_whitespace_gets_a_whitespace_hint(call: Call, workspace: Path) -> None:
    (workspace / "app.py").write_text(SOURCE)
    result = _edit(call, old_string='\tmessage = "Hello, " + name\n\tprint(message)', new_string="pass")
    assert result.success is False
    assert "Lines 2-3 match when whitespace is ignored" in result.output
    assert "     3\t    print(message)" in result.output


def test_line_number_prefixes_copied_from_read_file_are_pointed_out(call: Call, workspace: Path) -> None:
    (workspace / "app.py").write_text(SOURCE)
    result = _edit(call, old_string='     6\tdef main():\n     7\t    greet("world")', new_string="")
    assert result.success is False and "line-number prefixes" in result.output


def test_nothing_similar_says_so(call: Call, workspace: Path) -> None:
    (workspace / "app.py").write_text(SOURCE)
    result = _edit(call, old_string="SELECT * FROM accounts WHERE id = 42;", new_string="")
    assert result.success is False and "Nothing in the file is close to it" in result.output


def test_the_closest_region_is_found_in_a_long_file(call: Call, workspace: Path) -> None:
    lines = [f"value_{n} = compute({n}, factor={n % 7})" for n in range(20_000)]
    (workspace / "app.py").write_text("\n".join(lines) + "\n")
    result = _edit(
        call,
        old_string="value_15000 = compute(15000, factor=6)\nvalue_15001 = compute(15001, factor=9)\n",
        new_string="",
    )
    assert "The closest region is lines 15001-15002" in result.output


def test_lf_text_edits_a_crlf_file_and_keeps_its_line_endings(call: Call, workspace: Path) -> None:
    (workspace / "app.py").write_bytes(b"first\r\nsecond\r\nthird\r\n")
    result = _edit(call, old_string="first\nsecond\n", new_string="one\ntwo\nthree\n")
    assert result.success is True
    assert "converting line endings" in result.output
    assert (workspace / "app.py").read_bytes() == b"one\r\ntwo\r\nthree\r\nthird\r\n"


def test_crlf_text_edits_an_lf_file(call: Call, workspace: Path) -> None:
    (workspace / "app.py").write_bytes(b"first\nsecond\n")
    result = _edit(call, old_string="first\r\nsecond", new_string="1\r\n2")
    assert result.success is True
    assert (workspace / "app.py").read_bytes() == b"1\n2\n"


def test_identical_old_and_new_strings_are_an_error(call: Call, workspace: Path) -> None:
    (workspace / "app.py").write_text(SOURCE)
    assert _edit(call, old_string="main", new_string="main").success is False


def test_an_empty_old_string_creates_a_missing_file(call: Call, workspace: Path) -> None:
    result = call(EditFileTool(), path="pkg/new.py", old_string="", new_string="x = 1\n")
    assert (result.success, result.output) == (True, "Created pkg/new.py (1 line).")
    assert (workspace / "pkg" / "new.py").read_text() == "x = 1\n"


def test_an_empty_old_string_on_a_file_with_content_is_an_error(call: Call, workspace: Path) -> None:
    (workspace / "app.py").write_text(SOURCE)
    result = _edit(call, old_string="", new_string="x")
    assert result.success is False and "write_file" in result.output
    assert (workspace / "app.py").read_text() == SOURCE


def test_editing_a_missing_file_is_an_error(call: Call) -> None:
    result = _edit(call, old_string="a", new_string="b")
    assert (result.success, result.output) == (False, "File not found: app.py. To create a file, use write_file.")


def test_editing_a_binary_file_is_an_error(call: Call, workspace: Path) -> None:
    (workspace / "app.py").write_bytes(b"a\0b")
    assert _edit(call, old_string="a", new_string="b").success is False


def test_edits_go_through_the_write_interceptor_which_can_refuse(call: Call, ctx: ToolContext, workspace: Path) -> None:
    seen: list[str] = []

    def refuse(path: Path, content: str) -> None:
        seen.append(content)
        raise RuntimeError("read-only checkout")

    context = ToolContext(cwd=ctx.cwd, data_dir=ctx.data_dir, file_options=FileToolOptions(write_interceptor=refuse))
    (workspace / "app.py").write_text("a = 1\n")
    result = call(EditFileTool(), context, path="app.py", old_string="a = 1", new_string="a = 2")
    assert (result.success, result.output) == (False, "Write to app.py refused: read-only checkout")
    assert seen == ["a = 2\n"]
    assert (workspace / "app.py").read_text() == "a = 1\n"
    assert sorted(p.name for p in workspace.iterdir()) == ["app.py"]


def test_new_lines_inserted_into_a_crlf_file_get_crlf_endings(call: Call, workspace: Path) -> None:
    (workspace / "app.py").write_bytes(b"a = 1\r\nb = 2\r\n")
    assert _edit(call, old_string="a = 1", new_string="a = 1\nc = 3").success is True
    assert (workspace / "app.py").read_bytes() == b"a = 1\r\nc = 3\r\nb = 2\r\n"

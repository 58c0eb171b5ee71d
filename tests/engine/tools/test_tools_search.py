from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.tools.base import FileToolOptions, ToolContext, ToolResult
from engine.tools.ripgrep import RipgrepBackend, find_ripgrep
from engine.tools.search import GlobFilesTool, GrepFilesTool
from engine.tools.search_backend import MAX_FILE_SIZE, GrepQuery, PythonSearchBackend, SearchBackend

Call = Callable[..., ToolResult]

REPO: dict[str, str | bytes] = {
    ".gitignore": "build/\n*.log\n!keep.log\nnode_modules\n",
    ".git/info/exclude": "secret.env\n",
    ".github/workflows/ci.yml": "needle: true\n",
    "build/out.py": "needle\n",
    "data.bin": b"needle\0\x01\x02",
    "debug.log": "needle\n",
    "docs/guide.md": "nothing to see\n",
    "keep.log": "needle\n",
    "node_modules/pkg/index.js": "needle\n",
    "secret.env": "needle\n",
    "src/.gitignore": "*.tmp\n/generated.py\n",
    "src/app.py": "def main():\n    return 'needle'\n",
    "src/cache.tmp": "needle\n",
    "src/deep/generated.py": "needle\n",
    "src/generated.py": "needle\n",
    "src/util.py": "NEEDLE = 1\n",
}
VISIBLE = [
    ".github/workflows/ci.yml",
    ".gitignore",
    "data.bin",
    "docs/guide.md",
    "keep.log",
    "src/.gitignore",
    "src/app.py",
    "src/deep/generated.py",
    "src/util.py",
]


def _build(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


@pytest.fixture
def repo(workspace: Path) -> Path:
    _build(workspace, REPO)
    (workspace / "link.py").symlink_to("src/app.py")
    (workspace / "linked_dir").symlink_to("src")
    return workspace


def _list(backend: SearchBackend, root: Path) -> list[str]:
    return asyncio.run(backend.list_files(root))


# --- which files are seen --------------------------------------------------------------------


def test_listing_honours_gitignore_nested_gitignore_negation_and_info_exclude(
    backend: SearchBackend, repo: Path
) -> None:
    assert _list(backend, repo) == VISIBLE


def test_a_search_rooted_inside_an_ignored_directory_sees_its_files(backend: SearchBackend, repo: Path) -> None:
    assert _list(backend, repo / "node_modules") == ["pkg/index.js"]


def test_gitignore_files_above_the_repository_root_do_not_apply(backend: SearchBackend, workspace: Path) -> None:
    _build(workspace, {".gitignore": "*.py\n", "repo/.git/HEAD": "ref\n", "repo/a.py": ""})
    assert _list(backend, workspace / "repo") == ["a.py"]


def test_gitignore_applies_only_inside_a_git_repository(backend: SearchBackend, workspace: Path) -> None:
    _build(workspace, {".gitignore": "build/\n", "build/x.py": "", "y.py": ""})
    assert _list(backend, workspace) == [".gitignore", "build/x.py", "y.py"]


def test_a_nested_repository_uses_only_its_own_rules(backend: SearchBackend, workspace: Path) -> None:
    _build(workspace, {".git/HEAD": "", ".gitignore": "*.txt\n", "sub/.git/HEAD": "", "sub/a.txt": "", "b.txt": ""})
    assert _list(backend, workspace) == [".gitignore", "sub/a.txt"]


def test_a_subdirectory_search_applies_anchored_parent_rules_like_git(backend: SearchBackend, workspace: Path) -> None:
    # ripgrep 14 alone gets both wrong (BurntSushi/ripgrep issues 2778 and 2770).
    _build(
        workspace,
        {
            ".git/HEAD": "",
            ".gitignore": "/parent/*.txt\n**/bar/*\n",
            "parent/ignore-me.txt": "",
            "parent/subdir/keep-me.txt": "",
            "foo/bar/baz": "",
            "foo/qux": "",
        },
    )
    assert _list(backend, workspace / "parent") == ["subdir/keep-me.txt"]
    assert _list(backend, workspace / "foo") == ["qux"]


def test_the_repositorys_exclude_file_applies_in_subdirectories(backend: SearchBackend, workspace: Path) -> None:
    _build(workspace, {".git/info/exclude": "secret\n", "sub/secret": "", "sub/deeper/secret": "", "sub/ok": ""})
    assert _list(backend, workspace / "sub") == ["ok"]


TRICKY: dict[str, str | bytes] = {
    ".git/HEAD": "",
    ".gitignore": "logs/\n/only_root.txt\nout/**\n!out/keep.txt\ncache\n!cache/\n*.o\n!important.o\n",
    "a-b.py": "x\n",
    "a.py": "x\n",
    "a/x.py": "x\n",
    "B/y.py": "x\n",
    "logs": "a file named logs is not a directory\n",
    "dir/logs/z.txt": "x\n",
    "only_root.txt": "x\n",
    "dir/only_root.txt": "x\n",
    "out/drop.txt": "x\n",
    "out/keep.txt": "x\n",
    "m.o": "x\n",
    "important.o": "x\n",
    "sp ace/na me.txt": "x\n",
    "unicode/é.txt": "x\n",
    "_under.txt": "x\n",
}


@pytest.mark.skipif(find_ripgrep() is None, reason="ripgrep (rg) is not installed")
def test_ripgrep_and_python_backends_agree_on_a_tricky_tree(workspace: Path) -> None:
    _build(workspace, TRICKY)
    rg_path = find_ripgrep()
    assert rg_path is not None
    ripgrep, python = RipgrepBackend(rg_path), PythonSearchBackend()
    assert _list(ripgrep, workspace) == _list(python, workspace)
    query = GrepQuery("x")
    assert asyncio.run(ripgrep.grep(workspace, query)) == asyncio.run(python.grep(workspace, query))


# --- glob_files ------------------------------------------------------------------------------


def _touch_in_order(root: Path, names: list[str]) -> None:
    """Give the files increasing modification times, in list order."""
    for offset, name in enumerate(names):
        os.utime(root / name, (1_700_000_000 + offset, 1_700_000_000 + offset))


def test_glob_without_a_slash_matches_names_at_any_depth_newest_first(
    call: Call, backend: SearchBackend, repo: Path
) -> None:
    _touch_in_order(repo, ["src/util.py", "src/app.py", "src/deep/generated.py"])
    assert call(GlobFilesTool(backend), pattern="*.py").output.splitlines() == [
        "src/deep/generated.py",
        "src/app.py",
        "src/util.py",
        "(3 files matching '*.py', most recently modified first)",
    ]


def test_glob_with_a_slash_matches_paths_from_the_search_root(call: Call, backend: SearchBackend, repo: Path) -> None:
    _touch_in_order(repo, ["src/util.py", "src/app.py"])
    assert call(GlobFilesTool(backend), pattern="src/*.py").output.splitlines()[:2] == ["src/app.py", "src/util.py"]


def test_glob_supports_double_star_and_braces(call: Call, backend: SearchBackend, repo: Path) -> None:
    _touch_in_order(repo, ["docs/guide.md", ".github/workflows/ci.yml"])
    output = call(GlobFilesTool(backend), pattern="**/*.{yml,md}").output
    assert output.splitlines()[:2] == [".github/workflows/ci.yml", "docs/guide.md"]


def test_glob_results_are_shown_relative_to_the_working_directory(
    call: Call, backend: SearchBackend, repo: Path
) -> None:
    _touch_in_order(repo, ["src/util.py", "src/app.py", "src/deep/generated.py"])
    output = call(GlobFilesTool(backend), pattern="*.py", path="src/deep").output
    assert output.splitlines()[0] == "src/deep/generated.py"


def test_an_absolute_glob_pattern_searches_its_own_directory(call: Call, backend: SearchBackend, repo: Path) -> None:
    _touch_in_order(repo, ["src/util.py", "src/app.py"])
    output = call(GlobFilesTool(backend), pattern=f"{repo}/src/*.py").output
    assert output.splitlines()[:3] == [
        "src/app.py",
        "src/util.py",
        f"(2 files matching '{repo}/src/*.py', most recently modified first)",
    ]


def test_glob_caps_the_number_of_results(call: Call, backend: SearchBackend, workspace: Path) -> None:
    _build(workspace, {f"f{n:03}.txt": "" for n in range(205)})
    lines = call(GlobFilesTool(backend), pattern="*.txt").output.splitlines()
    assert len(lines) == 201
    assert lines[-1].startswith("(showing the 200 most recently modified of 205 files")


def test_glob_without_matches_says_so(call: Call, backend: SearchBackend, repo: Path) -> None:
    result = call(GlobFilesTool(backend), pattern="*.rs")
    assert (result.success, result.output) == (True, "No files match '*.rs' in ..")


def test_glob_in_a_missing_directory_is_an_error(call: Call, backend: SearchBackend, repo: Path) -> None:
    result = call(GlobFilesTool(backend), pattern="*", path="nowhere")
    assert (result.success, result.output) == (False, "Not found: nowhere")


# --- grep_files ------------------------------------------------------------------------------


def test_grep_lists_matching_lines_as_path_line_text_in_path_order(
    call: Call, backend: SearchBackend, repo: Path
) -> None:
    assert call(GrepFilesTool(backend), pattern="needle").output.splitlines() == [
        ".github/workflows/ci.yml:1:needle: true",
        "keep.log:1:needle",
        "src/app.py:2:    return 'needle'",
        "src/deep/generated.py:1:needle",
        "(4 matching lines in 4 files)",
    ]


def test_grep_ignore_case_matches_other_cases(call: Call, backend: SearchBackend, repo: Path) -> None:
    output = call(GrepFilesTool(backend), pattern="needle =", ignore_case=True).output
    assert output.splitlines() == ["src/util.py:1:NEEDLE = 1", "(1 matching line in 1 file)"]


def test_grep_glob_filters_the_files_searched(call: Call, backend: SearchBackend, repo: Path) -> None:
    by_name = call(GrepFilesTool(backend), pattern="needle", glob="*.py").output.splitlines()
    by_path = call(GrepFilesTool(backend), pattern="needle", glob="src/*.py").output.splitlines()
    assert by_name[:-1] == ["src/app.py:2:    return 'needle'", "src/deep/generated.py:1:needle"]
    assert by_path[:-1] == ["src/app.py:2:    return 'needle'"]


def test_grep_searches_a_single_file_when_given_one(call: Call, backend: SearchBackend, repo: Path) -> None:
    output = call(GrepFilesTool(backend), pattern="needle", path="src/app.py").output
    assert output.splitlines()[0] == "src/app.py:2:    return 'needle'"


def test_grep_skips_binary_files_even_when_named_explicitly(call: Call, backend: SearchBackend, repo: Path) -> None:
    result = call(GrepFilesTool(backend), pattern="needle", path="data.bin")
    assert (result.success, result.output) == (
        True,
        "No matches for 'needle' in data.bin. Not searched: 1 binary file (data.bin).",
    )


def test_grep_with_an_invalid_regex_is_an_error(call: Call, backend: SearchBackend, repo: Path) -> None:
    result = call(GrepFilesTool(backend), pattern="foo(")
    assert result.success is False
    assert result.output.startswith("Invalid regular expression 'foo(':")


def test_grep_accepts_patterns_starting_with_a_dash(call: Call, backend: SearchBackend, workspace: Path) -> None:
    _build(workspace, {"f.txt": "run with --verbose\n"})
    assert call(GrepFilesTool(backend), pattern="--verbose").output.splitlines()[0] == "f.txt:1:run with --verbose"


def test_grep_caps_the_number_of_matching_lines(call: Call, backend: SearchBackend, workspace: Path) -> None:
    _build(workspace, {"many.txt": "hit\n" * 250})
    lines = call(GrepFilesTool(backend), pattern="hit").output.splitlines()
    assert len(lines) == 201
    assert lines[-1].startswith("(showing the first 200 matching lines; there are more")


def test_grep_cuts_very_long_lines(call: Call, backend: SearchBackend, workspace: Path) -> None:
    _build(workspace, {"min.js": "hit" + "x" * 2000 + "\n"})
    first = call(GrepFilesTool(backend), pattern="hit").output.splitlines()[0]
    assert first == "min.js:1:hit" + "x" * 497 + "... [line cut]"


def test_grep_keeps_crlf_out_of_the_text(call: Call, backend: SearchBackend, workspace: Path) -> None:
    _build(workspace, {"dos.txt": b"hit one\r\nhit two\r\n"})
    assert call(GrepFilesTool(backend), pattern="two$|one").output.splitlines()[0] == "dos.txt:1:hit one"


def test_grep_without_matches_says_so(call: Call, backend: SearchBackend, repo: Path) -> None:
    result = call(GrepFilesTool(backend), pattern="absent", glob="*.md")
    assert (result.success, result.output) == (True, "No matches for 'absent' in . (files matching '*.md').")


def test_grep_outside_the_allowed_roots_is_an_error(
    call: Call, ctx: ToolContext, backend: SearchBackend, repo: Path
) -> None:
    limited = ToolContext(cwd=ctx.cwd, data_dir=ctx.data_dir, file_options=FileToolOptions(allowed_roots=(repo,)))
    result = call(GrepFilesTool(backend), limited, pattern="x", path="..")
    assert result.success is False and "outside the allowed directories" in result.output


def test_an_invalid_glob_is_an_error(call: Call, backend: SearchBackend, repo: Path) -> None:
    assert call(GrepFilesTool(backend), pattern="x", glob="[z-a]").success is False
    assert call(GlobFilesTool(backend), pattern="[z-a]").success is False


def test_grep_skips_files_over_the_size_limit_even_when_filtered_by_glob(
    call: Call, backend: SearchBackend, workspace: Path
) -> None:
    _build(workspace, {"small.txt": "hit\n"})
    with (workspace / "big.txt").open("wb") as handle:
        handle.write(b"hit\n")
        handle.truncate(MAX_FILE_SIZE + 1)
    for glob in ("", "*.txt"):
        assert call(GrepFilesTool(backend), pattern="hit", glob=glob).output.splitlines()[0] == "small.txt:1:hit"


def test_grep_finds_matches_in_a_file_named_dash(call: Call, backend: SearchBackend, workspace: Path) -> None:
    _build(workspace, {"-": "hit\n"})
    assert call(GrepFilesTool(backend), pattern="hit", glob="-").output.splitlines()[0] == "-:1:hit"


def test_results_name_the_file_behind_every_entry_and_render_without_some(
    backend: SearchBackend, repo: Path, call: Call
) -> None:
    grep = call(GrepFilesTool(backend), pattern="needle", path="src")
    assert grep.shown_files is not None
    assert grep.shown_files.paths == ("src/app.py", "src/deep/generated.py")
    assert grep.shown_files.render(frozenset()) == grep.output
    assert grep.shown_files.render(frozenset({"src/app.py"})).splitlines() == [
        "src/deep/generated.py:1:needle",
        "(1 matching line in 1 file)",
    ]
    globbed = call(GlobFilesTool(backend), pattern="*.py", path="src")
    assert globbed.shown_files is not None and set(globbed.shown_files.paths) == {
        "src/app.py",
        "src/deep/generated.py",
        "src/util.py",
    }
    assert "src/util.py" not in globbed.shown_files.render(frozenset({"src/util.py"}))
    nothing = call(GrepFilesTool(backend), pattern="no such text")
    assert nothing.shown_files is not None and nothing.shown_files.paths == ("data.bin",)  # named: not searched
    assert nothing.shown_files.render(frozenset({"data.bin"})) == "No matches for 'no such text' in .."

from __future__ import annotations

import pytest

from engine.tools.globs import GlobMatcher, split_base


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", "a.py", True),
        ("*.py", "src/deep/a.py", True),
        ("*.py", "a.pyc", False),
        ("*", ".env", True),
        ("src/*.ts", "src/a.ts", True),
        ("src/*.ts", "src/x/a.ts", False),
        ("src/*.ts", "lib/src/a.ts", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "x/y/a.py", True),
        ("src/**/test_*.py", "src/test_a.py", True),
        ("src/**/test_*.py", "src/a/b/test_a.py", True),
        ("src/**", "src/a/b.c", True),
        ("*.{ts,tsx}", "a.tsx", True),
        ("*.{ts,tsx}", "a.js", False),
        ("{src,lib}/**/*.rs", "lib/x/m.rs", True),
        ("file?.txt", "file1.txt", True),
        ("file?.txt", "file10.txt", False),
        ("[abc].md", "b.md", True),
        ("[!abc].md", "b.md", False),
        ("[!abc].md", "d.md", True),
        ("a\\*b", "a*b", True),
        ("a\\*b", "axb", False),
        ("./src/*.py", "src/a.py", True),
        ("weird[", "weird[", True),
        ("Makefile", "sub/Makefile", True),
    ],
)
def test_glob_patterns_match_like_the_tool_documents(pattern: str, path: str, expected: bool) -> None:
    assert GlobMatcher(pattern).matches(path) is expected


def test_an_anchored_pattern_without_a_slash_matches_only_at_the_top() -> None:
    matcher = GlobMatcher("*.py", anchored=True)
    assert (matcher.matches("a.py"), matcher.matches("x/a.py")) == (True, False)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("/work/src/**/*.py", ("/work/src", "**/*.py")),
        ("/work/src/a.py", ("/work/src", "a.py")),
        ("../other/*.ts", ("../other", "*.ts")),
        ("/*.py", ("/", "*.py")),
        ("*.py", ("", "*.py")),
    ],
)
def test_split_base_separates_the_literal_directories(pattern: str, expected: tuple[str, str]) -> None:
    assert split_base(pattern) == expected

"""Property test: on random trees with random .gitignore files, ripgrep and the Python backend list the same files."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.tools.ripgrep import RipgrepBackend, find_ripgrep
from engine.tools.search_backend import PythonSearchBackend

RG = find_ripgrep()
pytestmark = pytest.mark.skipif(RG is None, reason="ripgrep (rg) is not installed")

# Names ending in "." are left out: ripgrep 14 does not match them with patterns such as "*." (git does).
NAMES = ["a", "b", "ab", "a.py", "b.txt", "x.o", ".hid", "build", "logs", "c d", "#x", "!b"]
SEGMENTS = [*NAMES[:-2], "*", "**", "a*", "**b", "*.py", "?", "[ab]", "[!a]*", "[a-c]*", "\\#x", "\\!b", " b"]

paths = st.lists(st.sampled_from(NAMES), min_size=1, max_size=4).map("/".join)
patterns = st.builds(
    lambda negate, anchor, segments, directory: (
        ("!" if negate else "") + ("/" if anchor else "") + "/".join(segments) + ("/" if directory else "")
    ),
    st.booleans(),
    st.booleans(),
    st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=3),
    st.booleans(),
)
ignore_files = st.dictionaries(
    st.lists(st.sampled_from(NAMES), max_size=2).map(lambda parts: "/".join([*parts, ".gitignore"])),
    st.lists(patterns, min_size=1, max_size=5),
    max_size=3,
)


def _build(root: Path, files: list[str], ignores: dict[str, list[str]], exclude: list[str]) -> None:
    for name in [*files, *ignores]:
        path = root / name
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                path.write_text("x\n")
        except (FileExistsError, NotADirectoryError):
            continue  # a file already sits where this path needs a directory
    for name, lines in ignores.items():
        if (root / name).is_file():
            (root / name).write_text("\n".join(lines) + "\n")
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "info" / "exclude").write_text("\n".join(exclude) + "\n")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(paths, min_size=1, max_size=20), ignore_files, st.lists(patterns, max_size=2))
def test_ripgrep_and_python_list_the_same_files(
    files: list[str], ignores: dict[str, list[str]], exclude: list[str]
) -> None:
    assert RG is not None
    ripgrep, python = RipgrepBackend(RG), PythonSearchBackend()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _build(root, files, ignores, exclude)
        roots = [root, *sorted(p for p in root.rglob("*") if p.is_dir() and ".git" not in p.parts)[:2]]
        for search_root in roots:
            assert asyncio.run(ripgrep.list_files(search_root)) == asyncio.run(python.list_files(search_root))

"""A large git repository for the checkpoint benchmark: many files, hundreds of megabytes, a short history."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_WORDS = [f"word{n}" for n in range(512)]
_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "b@b",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "b@b",
}


def git(root: Path, *arguments: str) -> None:
    """Run git in ``root`` quietly (an identity given, compression low: the build is not what is measured)."""
    env = {**os.environ, **_ENV}
    subprocess.run(["git", "-c", "core.compression=1", *arguments], cwd=root, env=env, check=True, capture_output=True)


def _text(rng: random.Random, size: int) -> bytes:
    """Source-like text of about ``size`` bytes."""
    line = " ".join(rng.choice(_WORDS) for _ in range(12)).encode() + b"\n"
    block = line * (size // len(line) + 1)
    return rng.randbytes(8).hex().encode() + b"\n" + block[:size]


@contextmanager
def big_repository(files: int = 20_000, total_bytes: int = 500_000_000, commits: int = 3) -> Iterator[Path]:
    """A repository under /var/tmp with ``files`` files of ``total_bytes`` in all and ``commits`` commits; removed after."""
    base = Path("/var/tmp") if Path("/var/tmp").is_dir() else Path(tempfile.gettempdir())
    root = Path(tempfile.mkdtemp(prefix="hive-bench-repo-", dir=base)).resolve()
    try:
        rng = random.Random(33)
        per_file = total_bytes // files
        for number in range(files):
            folder = root / f"pkg{number % 50}" / f"mod{number % 400}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"file{number}.py").write_bytes(_text(rng, rng.randint(per_file // 2, per_file * 3 // 2)))
        git(root, "init", "-q")
        for commit in range(commits):
            if commit:
                for number in range(commit, files, 97):
                    path = root / f"pkg{number % 50}" / f"mod{number % 400}" / f"file{number}.py"
                    path.write_bytes(_text(rng, 2_000))
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", f"commit {commit}")
        os.utime(root / ".git" / "index")  # as after any later git command: no entry is racily clean
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def tree_bytes(root: Path) -> int:
    """The bytes of the files of the work tree (``.git`` left out)."""
    total = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        total += sum(os.lstat(os.path.join(folder, name)).st_size for name in names)
    return total

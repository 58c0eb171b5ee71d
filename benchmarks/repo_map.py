"""How long the repository map takes for a 2,000-file repository: cold (every file parsed) and cached.

A temporary folder is filled with 2,000 source files (Python, TypeScript, JavaScript and Go in equal
parts, 60-120 lines each, every file defining a class or type and a few functions and calling
definitions of ten other files), with ``.git`` so it is a repository. Printed: the time of the map
with an empty cache (each file read, parsed and its tags kept), with the cache (each file read and
its digest looked up: nothing parsed), after one file changed (one parsed), the rendering of a
1,024-token map; the ratio cold / cached; and what a session start pays when the first request's map is
kept (the files listed and stated, the key made, the map loaded). Goals: cached at least 5x faster than
cold; cached under 1 s.

Usage: python benchmarks/repo_map.py [--files N]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.context.tokens import counter_for
from engine.repomap.build import map_files, render_map
from engine.repomap.files import candidate_files
from engine.repomap.section_cache import load_section, save_section, section_key, section_path

RUNS = 3
SETTINGS = ["the read rules and options a session would key the map on", 1024]


def python_file(index: int, calls: list[int], rng: random.Random) -> str:
    lines = [f"from pkg import helpers\n\n\nclass Widget{index}:"]
    for method in range(rng.randint(4, 8)):
        lines += [
            f"    def method_{method}(self, value: int) -> int:",
            f"        return compute_{calls[method % len(calls)]}(value)\n",
        ]
    for function in range(3):
        lines += [
            f"def compute_{index}_{function}(value: int) -> int:",
            *[f"    value = helper_{n}(value)" for n in calls],
            "    return value\n",
        ]
    lines += [f"def compute_{index}(value: int) -> Widget{calls[0]}:", f"    return Widget{calls[1]}()\n"]
    return "\n".join(lines)


def script_file(index: int, calls: list[int], rng: random.Random, typed: bool) -> str:
    kind = ": number" if typed else ""
    lines = [f"export class Widget{index} {{"]
    for method in range(rng.randint(4, 8)):
        lines += [f"  method{method}(value{kind}) {{", f"    return compute{calls[method % len(calls)]}(value);", "  }"]
    lines.append("}")
    for function in range(3):
        lines += [
            f"export function compute{index}_{function}(value{kind}) {{",
            *[f"  value = helper{n}(value);" for n in calls],
            "  return value;",
            "}",
        ]
    lines += [f"export const compute{index} = (value{kind}) => new Widget{calls[0]}();"]
    return "\n".join(lines) + "\n"


def go_file(index: int, calls: list[int], rng: random.Random) -> str:
    lines = ["package pkg\n", f"type Widget{index} struct {{ size int }}\n"]
    for method in range(rng.randint(4, 8)):
        lines += [
            f"func (w *Widget{index}) Method{method}(value int) int {{",
            f"\treturn Compute{calls[method % len(calls)]}(value)",
            "}\n",
        ]
    for function in range(3):
        lines += [
            f"func Compute{index}_{function}(value int) int {{",
            *[f"\tvalue = Helper{n}(value)" for n in calls],
            "\treturn value",
            "}\n",
        ]
    lines += [f"func Compute{index}(value int) *Widget{calls[0]} {{ return &Widget{calls[1]}{{}} }}"]
    return "\n".join(lines) + "\n"


def make_repository(root: Path, files: int) -> None:
    rng = random.Random(7)
    (root / ".git").mkdir(parents=True)
    for index in range(files):
        calls = [rng.randrange(files) for _ in range(10)]
        kind = index % 4
        folder = root / f"module{index // 100}"
        folder.mkdir(exist_ok=True)
        if kind == 0:
            (folder / f"widget{index}.py").write_text(python_file(index, calls, rng))
        elif kind == 1:
            (folder / f"widget{index}.ts").write_text(script_file(index, calls, rng, typed=True))
        elif kind == 2:
            (folder / f"widget{index}.js").write_text(script_file(index, calls, rng, typed=False))
        else:
            (folder / f"widget{index}.go").write_text(go_file(index, calls, rng))


def everything(relative: str) -> bool:
    return True


def timed_map(root: Path, cache: Path, *, fresh: bool) -> tuple[float, int]:
    if fresh:
        shutil.rmtree(cache, ignore_errors=True)
    started = time.perf_counter()
    mapped = map_files(root, everything, cache_dir=cache)
    return time.perf_counter() - started, mapped.parsed


def timed_kept_section(root: Path, cache: Path, text: str) -> float:
    """What a session start pays when the first request's map is kept: list and stat the files, find the map."""
    kept_at = section_path(root, cache)
    save_section(kept_at, root, section_key(root, list(candidate_files(root)), SETTINGS), text)
    started = time.perf_counter()
    found = load_section(kept_at, root, section_key(root, list(candidate_files(root)), SETTINGS))
    assert found == text
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    files = parser.parse_args().files
    with tempfile.TemporaryDirectory(prefix="hive-bench-repomap-") as folder:
        root = (Path(folder) / "repo").resolve()
        cache = Path(folder) / "cache"
        make_repository(root, files)
        size = sum(path.stat().st_size for path in root.rglob("*") if path.is_file())
        cold = [timed_map(root, cache, fresh=True) for _ in range(RUNS)]
        cached = [timed_map(root, cache, fresh=False) for _ in range(RUNS)]
        changed_file = next(root.rglob("*.py"))
        changed_file.write_text(changed_file.read_text() + "\n\ndef added_later() -> None:\n    pass\n")
        one_changed = timed_map(root, cache, fresh=False)
        mapped = map_files(root, everything, cache_dir=cache)
        tokens = counter_for("").text
        tokens("warm the tokenizer")
        started = time.perf_counter()
        repo_map = render_map(mapped, 1024, tokens)
        rendering = time.perf_counter() - started
        kept = [timed_kept_section(root, cache, repo_map.text) for _ in range(RUNS)]
    cold_s = statistics.median(t for t, _ in cold)
    cached_s = statistics.median(t for t, _ in cached)
    print(f"repository map: {files} files, {size / 1e6:.1f} MB, {repo_map.total} definitions")
    print(f"  cold (empty cache): {cold_s:.2f} s  ({cold[0][1]} files parsed; median of {RUNS})")
    print(f"  cached:             {cached_s:.3f} s  ({cached[0][1]} files parsed; median of {RUNS})")
    print(f"  one file changed:   {one_changed[0]:.3f} s  ({one_changed[1]} file parsed)")
    print(f"  rendering a 1,024-token map: {rendering * 1000:.0f} ms ({repo_map.shown} definitions shown)")
    ratio = cold_s / cached_s if cached_s else float("inf")
    print(f"  cold / cached: {ratio:.1f}x (goal: at least 5x; cached under 1 s: {'yes' if cached_s < 1 else 'NO'})")
    kept_s = statistics.median(kept)
    print(
        f"  first-request map kept (list, stat, key, load): {kept_s * 1000:.0f} ms; "
        f"cached build + render / kept: {(cached_s + rendering) / kept_s:.1f}x"
    )


if __name__ == "__main__":
    main()

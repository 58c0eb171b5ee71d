"""`hive research` at standard depth over the fixture documents, and indexing 10,000 local documents.

Part 1 runs the real program against the scripted research model (in its own process, started
afresh for each sample so every run is judged 0.4, 0.6, 0.85): median wall time, model calls,
iterations and sources. Part 2 generates 10,000 documents (mixed markdown, text and HTML) in a
folder under /var/tmp and times ``LocalDocs.build`` with nothing kept (the first run), with the index
an earlier run kept (the second), and after changing 10 files; then the kept file's size as msgpack and
as JSON, and the median query.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.support import research_server
from engine.research.docs_index import LocalDocs
from engine.research.docs_refresh import IndexReport
from engine.research.kept_index import kept_path
from tests.support.research_model import FIXTURE_DOCS

SAMPLES = 5
DOCUMENTS = 10_000
QUERIES = 100
CHANGED = 10
AN_HOUR_AGO = time.time() - 3600
QUESTION = "How fast is the Tessel Glacier retreating, and why?"
WORDS = (
    "glacier river survey ice core melt summer winter snow station temperature flow valley farm lake trail "
    "volcanic ash layer drill basin front retreat record measure drone photogrammetry mass balance water"
).split()


def one_run(home: Path, workdir: Path) -> tuple[float, dict[str, Any]]:
    process, base_url = research_server.start()
    try:
        command = [sys.executable, "-m", "hive_cli", "research", QUESTION, "--depth", "standard"]
        command += ["--provider", "docs", "--docs", str(FIXTURE_DOCS), "-o", "json", "-C", str(workdir)]
        command += ["--model", "openai/test-model", "--api-base", base_url, "--api-key", "sk-test"]
        env = dict(os.environ, HIVE_HOME=str(home), LITELLM_LOCAL_MODEL_COST_MAP="True")
        started = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        return time.perf_counter() - started, json.loads(done.stdout)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait()


def pipeline_figures() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        runs = [one_run(Path(tmp) / "home", Path(tmp)) for _ in range(SAMPLES)]
    times = [seconds for seconds, _ in runs]
    result = runs[-1][1]
    usage = result["usage"]["total"]
    print(f"hive research, standard depth, {len(list(FIXTURE_DOCS.rglob('*.*')))} fixture documents ({SAMPLES} runs):")
    print(f"  wall time: median {statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f})")
    print(
        f"  model calls: {usage['calls']}, by stage: "
        + ", ".join(f"{stage} {used['calls']}" for stage, used in result["usage"]["by_stage"].items())
    )
    print(
        f"  iterations: {len(result['iterations'])} (stop: {result['stop_reason']}), "
        f"sources cited: {len(result['sources'])}"
    )


def write_documents(folder: Path, count: int) -> int:
    rng = random.Random(16)
    size = 0
    for number in range(count):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(120, 260)))
        kind = number % 3
        if kind == 0:
            text = f"# Document {number}\n\n{body}\n"
        elif kind == 1:
            text = f"Document {number}\n\n{body}\n"
        else:
            text = f"<html><head><title>Document {number}</title></head><body><p>{body}</p></body></html>"
        path = folder / f"d{number // 1000}" / f"doc{number}.{('md', 'txt', 'html')[kind]}"
        path.parent.mkdir(exist_ok=True)
        size += path.write_text(text)
        os.utime(path, (AN_HOUR_AGO, AN_HOUR_AGO))  # written earlier: a folder modified just now is checked again
    return size


def indexing_figures() -> None:
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
        folder, cache = Path(tmp) / "docs", Path(tmp) / "cache"
        folder.mkdir()
        size = write_documents(folder, DOCUMENTS)
        first_s, report = timed_build(folder, cache)
        again = [timed_build(folder, cache)[0] for _ in range(SAMPLES)]
        changed = []
        for sample in range(SAMPLES):
            touch_documents(folder, sample)
            changed.append(timed_build(folder, cache))
        kept = kept_path(folder.resolve(), cache)
        formats = format_figures(kept)
        times = sorted(asyncio.run(timed_queries(LocalDocs(folder, cache=cache))))
    second_s, changed_s = statistics.median(again), statistics.median(seconds for seconds, _ in changed)
    print(f"LocalDocs, {report.files:,} generated documents ({size / 1e6:.1f} MB) under /var/tmp:")
    print(f"  first run, nothing kept (read, strip, tokenize, count, keep): {first_s:.2f} s")
    print(
        f"  second run, index kept: {second_s * 1000:.0f} ms = {second_s / first_s:.3f}x the first "
        f"(goal <= 0.1x; median of {SAMPLES})"
    )
    print(
        f"  after changing {CHANGED} files: {changed_s * 1000:.0f} ms = {changed_s / first_s:.3f}x the first "
        f"(read {changed[-1][1].read}, kept {changed[-1][1].kept})"
    )
    print(f"  kept index: {formats}")
    print(
        f"  query, top 10 files: median {statistics.median(times) * 1000:.1f} ms, "
        f"p95 {times[int(len(times) * 0.95)] * 1000:.1f} ms"
    )


def timed_build(folder: Path, cache: Path) -> tuple[float, IndexReport]:
    """How long a new run's ``LocalDocs`` takes to index ``folder`` (what the first search waits for)."""
    docs = LocalDocs(folder, cache=cache)
    started = time.perf_counter()
    report = docs.build()
    return time.perf_counter() - started, report


def touch_documents(folder: Path, sample: int) -> None:
    """Change ``CHANGED`` documents (a different few each sample): a sentence more in each."""
    for number in range(sample * CHANGED, (sample + 1) * CHANGED):
        path = folder / f"d{number // 1000}" / f"doc{number}.{('md', 'txt', 'html')[number % 3]}"
        path.write_text(path.read_text() + f" changed in sample {sample}\n")


def format_figures(kept: Path) -> str:
    """The kept index's size and decoding time as msgpack (what is kept) and, for comparison, as JSON."""
    data = kept.read_bytes()
    record = msgspec.msgpack.decode(data)
    as_json = msgspec.json.encode(record)
    msgpack_s = best_of(lambda: msgspec.msgpack.decode(data))
    json_s = best_of(lambda: msgspec.json.decode(as_json))
    return (
        f"msgpack {len(data) / 1e6:.1f} MB, decoded in {msgpack_s * 1000:.1f} ms; "
        f"as JSON {len(as_json) / 1e6:.1f} MB, {json_s * 1000:.1f} ms"
    )


def best_of(action: Callable[[], object], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best


async def timed_queries(docs: LocalDocs) -> list[float]:
    rng = random.Random(7)
    queries = [" ".join(rng.sample(WORDS, 3)) for _ in range(QUERIES)]
    times = []
    for query in queries:
        began = time.perf_counter()
        await docs.search(query, 10)
        times.append(time.perf_counter() - began)
    return times


def main() -> None:
    pipeline_figures()
    indexing_figures()


if __name__ == "__main__":
    main()

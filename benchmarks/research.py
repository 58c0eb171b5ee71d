"""`hive research` at standard depth over the fixture documents, and indexing 10,000 local documents.

Part 1 runs the real program against the scripted research model (in its own process, started
afresh for each sample so every run is judged 0.4, 0.6, 0.85): median wall time, model calls,
iterations and sources. Part 2 generates 10,000 documents (mixed markdown, text and HTML) in a
temporary folder and times ``LocalDocs.build`` and the median query.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.support import research_server
from engine.research.docs_index import LocalDocs
from tests.support.research_model import FIXTURE_DOCS

SAMPLES = 5
DOCUMENTS = 10_000
QUERIES = 100
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
    return size


def indexing_figures() -> None:
    import asyncio

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        size = write_documents(folder, DOCUMENTS)
        docs = LocalDocs(folder)
        started = time.perf_counter()
        files = docs.build()
        build_s = time.perf_counter() - started
        rng = random.Random(7)
        queries = [" ".join(rng.sample(WORDS, 3)) for _ in range(QUERIES)]

        async def timed_queries() -> list[float]:
            times = []
            for query in queries:
                began = time.perf_counter()
                await docs.search(query, 10)
                times.append(time.perf_counter() - began)
            return times

        times = sorted(asyncio.run(timed_queries()))
    print(f"LocalDocs, {files:,} generated documents ({size / 1e6:.1f} MB):")
    print(f"  index build (read, strip, tokenize, BM25): {build_s:.2f} s ({files / build_s:,.0f} documents/s)")
    print(
        f"  query, top 10 files: median {statistics.median(times) * 1000:.1f} ms, "
        f"p95 {times[int(len(times) * 0.95)] * 1000:.1f} ms"
    )


def main() -> None:
    pipeline_figures()
    indexing_figures()


if __name__ == "__main__":
    main()

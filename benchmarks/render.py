"""Streaming markdown throughput: the naive Live+Markdown re-render against hive's MarkdownStream.

A seeded, LLM-style answer of about 80 KB (headings, paragraphs with bold and inline code, bullet and
numbered lists, tables, fenced code in python/bash/diff/json) is cut into 20,000 deltas of 1-7 characters
(as in ../shared/notes/perf_anchors.md section 4) and fed, in process, to a
Console(file=<temp file>, force_terminal=True, width=100, color_system="truecolor"):

  (a) naive: Live(vertical_overflow="visible") re-rendering Markdown(whole answer so far) on every delta;
      capped in time, so its rate is for the prefix it reached (and it only gets slower);
  (b) MarkdownStream shown in a transient Live refreshed at most 15 times a second (the REPL setting);
  (c) MarkdownStream without a Live (block splitting and printing only);
  (d) PlainTextStream (the non-terminal path), for reference;
  (e) the CPU cost at a model's pace: (b) with one Live refresh every 6 deltas, as at 100 deltas/s and 15 Hz
      (without sleeping, and without the live view's re-render throttle, so an upper bound).

Goal: (b) sustains at least 5,000 deltas/s over the whole answer and does not slow down as it grows.
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown

from hive_cli.render import live_view
from hive_cli.render.markdown_stream import MarkdownStream
from hive_cli.render.plain_stream import PlainTextStream

DELTAS = 20_000
RUNS = 7
NAIVE_RUNS = 3
NAIVE_CAP_SECONDS = 3.0
REFRESH_PER_SECOND = 15
PACE = 100  # deltas per second of a fast model
GOAL = 5_000
WIDTH = 100

WORDS = (
    "the function returns a value when parser token stream buffer file path config cache model request response "
    "error retry timeout handler module class method test fixture argument option flag default update render "
    "session loop event tool call schema usage budget policy rule guard"
).split()

CODE = {
    "python": [
        "def load_config(path: Path) -> dict[str, Any]:",
        '    """Read the YAML config and merge the defaults."""',
        '    with path.open(encoding="utf-8") as handle:',
        "        data = yaml.safe_load(handle) or {}",
        "    for key, value in DEFAULTS.items():",
        "        data.setdefault(key, value)",
        "",
        "    return data",
        "class Retry:",
        "    def __init__(self, attempts: int = 3) -> None:",
        "        self.attempts = attempts",
    ],
    "bash": [
        "pip install -e '.[dev]'",
        "pytest -q tests/test_stream.py -k render",
        "git diff --stat HEAD~1",
        'export HIVE_MODEL="openai/gpt-4o"',
        "ruff check . && ruff format --check .",
    ],
    "diff": [
        "--- a/hive/render.py",
        "+++ b/hive/render.py",
        "@@ -12,7 +12,7 @@ def render(self):",
        "-    return self.buffer",
        "+    return self.buffer.rstrip()",
        "     # unchanged context line",
    ],
    "json": ['{"model": "gpt-4o", "stream": true,', ' "max_tokens": 1024, "tools": ["read_file", "grep_files"]}'],
}


def make_answer(min_chars: int, seed: int = 1234) -> str:
    """A realistic markdown answer of at least `min_chars` characters."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = section = 0
    while size < min_chars:
        section += 1
        text = _section(rng, section)
        parts.append(text)
        size += len(text)
    return "".join(parts)


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(5, 14))]
    i = rng.randrange(len(words))
    words[i] = f"`{words[i]}()`" if rng.random() < 0.5 else f"**{words[i]}**"
    return " ".join(words).capitalize() + "."


def _section(rng: random.Random, number: int) -> str:
    out = [f"{'#' * rng.choice((2, 2, 3))} Step {number}: {rng.choice(WORDS)} {rng.choice(WORDS)}\n\n"]
    out.append(" ".join(_sentence(rng) for _ in range(rng.randint(2, 4))) + "\n\n")
    if rng.random() < 0.7:
        ordered = rng.random() < 0.4
        for j in range(rng.randint(2, 5)):
            out.append(f"{f'{j + 1}.' if ordered else '-'} {_sentence(rng)}\n")
            if rng.random() < 0.2:
                out.append(f"{'   ' if ordered else '  '}- {_sentence(rng)}\n")
        out.append("\n")
    for _ in range(rng.choice((0, 1, 1, 2))):
        lang = rng.choice(list(CODE))
        lines = CODE[lang]
        start = rng.randrange(len(lines))
        body = "\n".join(lines[start:] + lines[: rng.randint(0, len(lines) - 1)])
        out.append(f"```{lang}\n{body}\n```\n\n")
        if rng.random() < 0.5:
            out.append(_sentence(rng) + "\n\n")
    if rng.random() < 0.15:
        out.append("| option | default | meaning |\n|---|---:|---|\n")
        out.extend(f"| `{rng.choice(WORDS)}` | {rng.randint(0, 99)} | {_sentence(rng)} |\n" for _ in range(3))
        out.append("\n")
    return "".join(out)


def make_deltas(count: int, seed: int = 99) -> list[str]:
    """`count` deltas of 1-7 characters cut from the answer."""
    rng = random.Random(seed)
    text = make_answer(count * 4 + 2_000)
    deltas: list[str] = []
    i = 0
    while len(deltas) < count:
        k = rng.randint(1, 7)
        deltas.append(text[i : i + k])
        i += k
    return deltas


def new_console(file: IO[str]) -> Console:
    return Console(file=file, force_terminal=True, width=WIDTH, color_system="truecolor")


class Run:
    """One timed pass: deltas done, seconds, and the time at which each tenth of the deltas was done."""

    def __init__(self) -> None:
        self.done = 0
        self.seconds = 0.0
        self.marks: list[float] = []

    @property
    def rate(self) -> float:
        return self.done / self.seconds

    def tenth_costs(self, total: int) -> tuple[float, float]:
        """Microseconds per delta over the first and over the last tenth of the deltas."""
        tenth = total // 10
        first = self.marks[0] / tenth
        last = (self.marks[-1] - self.marks[-2]) / tenth
        return first * 1e6, last * 1e6


def run_naive(deltas: list[str], file: IO[str]) -> Run:
    console, run, buffer = new_console(file), Run(), ""
    started = time.perf_counter()
    deadline = started + NAIVE_CAP_SECONDS
    with Live(console=console, auto_refresh=False, vertical_overflow="visible") as live:
        for delta in deltas:
            buffer += delta
            live.update(Markdown(buffer), refresh=True)
            run.done += 1
            if time.perf_counter() > deadline:
                break
    run.seconds = time.perf_counter() - started
    run.marks = [len(buffer)]
    return run


def run_stream(deltas: list[str], file: IO[str], *, live: bool) -> Run:
    console, run = new_console(file), Run()
    stream = MarkdownStream(console)
    tenth = len(deltas) // 10
    interval = 1 / REFRESH_PER_SECOND
    started = time.perf_counter()
    if live:
        with Live(stream, console=console, transient=True, auto_refresh=False) as region:
            next_refresh = started + interval
            for i, delta in enumerate(deltas, 1):
                stream.feed(delta)
                now = time.perf_counter()
                if now >= next_refresh:
                    region.refresh()
                    next_refresh = now + interval
                if i % tenth == 0:
                    run.marks.append(now - started)
            stream.finish()
    else:
        for i, delta in enumerate(deltas, 1):
            stream.feed(delta)
            if i % tenth == 0:
                run.marks.append(time.perf_counter() - started)
        stream.finish()
    run.seconds = time.perf_counter() - started
    run.done = len(deltas)
    return run


def run_paced(deltas: list[str], file: IO[str]) -> Run:
    console, run = new_console(file), Run()
    stream = MarkdownStream(console)
    every = PACE // REFRESH_PER_SECOND
    gap, live_view.RERENDER_GAP = live_view.RERENDER_GAP, 0.0
    started = time.perf_counter()
    try:
        with Live(stream, console=console, transient=True, auto_refresh=False) as region:
            for i, delta in enumerate(deltas, 1):
                stream.feed(delta)
                if i % every == 0:
                    region.refresh()
            stream.finish()
    finally:
        live_view.RERENDER_GAP = gap
    run.seconds = time.perf_counter() - started
    run.done = len(deltas)
    return run


def run_plain(deltas: list[str], file: IO[str]) -> Run:
    console, run = new_console(file), Run()
    stream = PlainTextStream(console)
    started = time.perf_counter()
    for delta in deltas:
        stream.feed(delta)
    stream.finish()
    run.seconds = time.perf_counter() - started
    run.done = len(deltas)
    return run


def timed(label: str, runs: int, once: Callable[[IO[str]], Run]) -> list[Run]:
    results = []
    for _ in range(runs):
        with tempfile.TemporaryFile("w+", encoding="utf-8") as file:
            results.append(once(file))
    rates = sorted(run.rate for run in results)
    print(f"{label:<44} {statistics.median(rates):>10,.0f} deltas/s  (min-max {rates[0]:,.0f}-{rates[-1]:,.0f})")
    return results


def naive_update_ms(text: str) -> float:
    """One naive update (parse and full render) of the given answer, in milliseconds (median of 3)."""
    costs = []
    for _ in range(3):
        with tempfile.TemporaryFile("w+", encoding="utf-8") as file:
            started = time.perf_counter()
            new_console(file).print(Markdown(text))
            costs.append(time.perf_counter() - started)
    return statistics.median(costs) * 1000


def same_as_whole(deltas: list[str]) -> bool:
    """Whether the streamed output equals Rich rendering the whole answer at once (hyperlink ids aside)."""
    outputs = []
    for feed in (True, False):
        with tempfile.TemporaryFile("w+", encoding="utf-8") as file:
            console = new_console(file)
            if feed:
                stream = MarkdownStream(console)
                for delta in deltas:
                    stream.feed(delta)
                stream.finish()
            else:
                console.print(Markdown("".join(deltas)))
            file.seek(0)
            outputs.append(file.read())
    return outputs[0] == outputs[1]


def main() -> None:
    deltas = make_deltas(DELTAS)
    text = "".join(deltas)
    fences = sum(1 for line in text.splitlines() if line.startswith("```"))
    print(f"answer: {len(text):,} chars, {DELTAS:,} deltas of 1-7 chars, {fences} fence markers; width {WIDTH}")
    print(f"streamed output identical to rendering the whole answer at once: {same_as_whole(deltas)}")
    timed("warm-up (imports, lexers)", 1, lambda f: run_stream(deltas, f, live=False))

    naive = timed("(a) naive Live + Markdown(all) per delta", NAIVE_RUNS, lambda f: run_naive(deltas, f))
    reached = statistics.median(run.done for run in naive)
    print(f"    in {NAIVE_CAP_SECONDS:.0f} s it reached ~{reached:,.0f} deltas ({reached / DELTAS:.0%} of the answer)")
    small, full = naive_update_ms(text[:1_000]), naive_update_ms(text)
    per_char = (full - small) / (len(text) - 1_000)
    projected = sum(small + per_char * (i * 4 - 1_000) for i in range(1, DELTAS + 1)) / 1000
    print(
        f"    one naive update costs {small:.1f} ms at 1 KB and {full:.0f} ms at {len(text) // 1000} KB: "
        f"{1000 / full:.1f} deltas/s at the end; whole answer projected at ~{projected / 60:.0f} min"
    )

    live = timed(
        f"(b) MarkdownStream in a Live at <= {REFRESH_PER_SECOND} Hz", RUNS, lambda f: run_stream(deltas, f, live=True)
    )
    timed("(c) MarkdownStream without Live", RUNS, lambda f: run_stream(deltas, f, live=False))
    timed("(d) PlainTextStream", RUNS, lambda f: run_plain(deltas, f))
    paced = timed(
        f"(e) as (b), one refresh per {PACE // REFRESH_PER_SECOND} deltas", RUNS, lambda f: run_paced(deltas, f)
    )
    per_delta = statistics.median(run.seconds / run.done for run in paced)
    print(
        f"(e) {per_delta * 1e6:.0f} us per delta including refreshes: about {per_delta * PACE:.1%} of one core "
        f"at {PACE} deltas/s and {REFRESH_PER_SECOND} Hz"
    )

    first, last = (statistics.median(costs) for costs in zip(*(run.tenth_costs(DELTAS) for run in live), strict=True))
    print(f"(b) cost per delta: first 10% {first:.1f} us, last 10% {last:.1f} us (ratio {last / first:.2f})")
    rate = statistics.median(run.rate for run in live)
    print(f"goal >= {GOAL:,} deltas/s with Live at 80 KB: {'met' if rate >= GOAL else 'NOT met'} ({rate:,.0f})")


if __name__ == "__main__":
    main()

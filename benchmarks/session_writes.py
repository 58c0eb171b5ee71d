"""What keeping known secrets out of session files costs a write: one record, with and without the scrubber.

Each record is written by the real ``SessionWriter`` (JSON, the scrubber over the line, a flush to
the operating system) to a file in a temporary folder. The environment holds eleven secret
variables (an API key and ten service tokens), as a developer's shell may; printed: the median time
of a write of a 200-byte message and of a 30 KB tool result, without scrubbing (every line as it
is) and with the scrubber hive builds, and the scrubber's own time on the 30 KB line.

Usage: python benchmarks/session_writes.py
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.redaction.scrubber import Scrubber
from engine.session_store import SessionWriter

WRITES = 2000
MESSAGE = {"type": "message", "message": {"role": "user", "content": "please fix the failing test in loop.py " * 5}}
RESULT = {"type": "message", "message": {"role": "tool", "content": "line of tool output with some words 1234\n" * 750}}


def environment() -> dict[str, str]:
    """A shell's worth of secret variables (none of their values occurs in the records)."""
    tokens = {f"SERVICE_{i}_TOKEN": f"tok-{i:02d}-" + "x7Kq9Lm2" * 4 for i in range(10)}
    return {"OPENAI_API_KEY": "sk-proj-" + "AbCdEfGh" * 6, "HOME": "/home/someone", **tokens}


def median_write_us(scrub: Callable[[str], str], record: dict[str, Any]) -> float:
    """The median time of one ``SessionWriter.write`` of ``record``, in microseconds."""
    with tempfile.TemporaryDirectory() as folder:
        writer = SessionWriter(Path(folder) / "session.jsonl", scrub)
        times = []
        for _ in range(WRITES):
            started = time.perf_counter()
            writer.write(record)
            times.append(time.perf_counter() - started)
        writer.close()
    return statistics.median(times) * 1e6


def main() -> None:
    scrub = Scrubber.from_environment(environment(), known=[("model-api-key", "sk-passed-on-the-command-line")])
    line = json.dumps(RESULT, ensure_ascii=False)
    started = time.perf_counter()
    for _ in range(WRITES):
        scrub(line)
    scrub_us = (time.perf_counter() - started) / WRITES * 1e6
    print(f"session writes ({WRITES} each, median), 11 known secret values, {os.cpu_count()} CPUs")
    for name, record in (("message 200 B", MESSAGE), ("tool result 30 KB", RESULT)):
        plain, scrubbed = median_write_us(lambda text: text, record), median_write_us(scrub, record)
        print(f"  {name:18} without scrubbing {plain:7.1f} µs · scrubbed {scrubbed:7.1f} µs")
    print(f"  the scrubber alone on the 30 KB line: {scrub_us:.1f} µs")


if __name__ == "__main__":
    main()

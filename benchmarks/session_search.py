"""How fast ``hive sessions search`` is over a thousand sessions (the streaming scan of engine/sessions/search.py).

A temporary folder is filled with 1000 session files as hive writes them: each a header and 40
messages (user requests, assistant replies with tool calls, tool results of 0.5-8 KB; 24 MB in all).
One word occurs in 5 of them, a common one in all; a text with a quote (sought record by record,
not in the raw bytes) in 5. Printed: the median time of a search for each, over five runs, with the
files in the page cache (a search right after another, as a person refining it would run them).

Usage: python benchmarks/session_search.py
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.session_store import SessionStore
from engine.sessions.search import search_sessions

SESSIONS = 1000
MESSAGES = 40
RUNS = 5
WORDS = "the loop test file fix error config model tool result session import path value return".split()


def prose(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def session_lines(rng: random.Random, number: int) -> list[str]:
    header = {"type": "session", "id": f"s{number:04d}", "cwd": "/p", "model": "m", "created": 1.0, "title": "fix it"}
    lines = [json.dumps(header)]
    for turn in range(MESSAGES // 4):
        marked = number % 200 == 0 and turn == 3
        ask = prose(rng, 20) + (' zanzibar said "quoted words"' if marked else "")
        call = {
            "id": f"c{turn}",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "a.py"}'},
        }
        for message in (
            {"role": "user", "content": ask},
            {"role": "assistant", "content": prose(rng, 30), "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{turn}", "content": prose(rng, rng.randint(80, 1300))},
            {"role": "assistant", "content": prose(rng, 60)},
        ):
            lines.append(json.dumps({"type": "message", "ts": 1.0, "message": message}, ensure_ascii=False))
    return lines


def timed(store: SessionStore, text: str) -> tuple[float, int]:
    times, found = [], 0
    for _ in range(RUNS):
        started = time.perf_counter()
        found = len(search_sessions(store, text).sessions)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000, found


def main() -> None:
    rng = random.Random(35)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for number in range(SESSIONS):
            (root / f"s{number:04d}.jsonl").write_text("\n".join(session_lines(rng, number)) + "\n")
        size = sum(path.stat().st_size for path in root.iterdir())
        store = SessionStore(root)
        print(
            f"sessions search over {SESSIONS} sessions ({size / 1e6:.0f} MB), median of {RUNS}, {os.cpu_count()} CPUs"
        )
        for label, text in (
            ("rare word", "Zanzibar"),
            ("common word", "config"),
            ("text with a quote", 'said "quoted'),
        ):
            ms, found = timed(store, text)
            print(f"  {label:<18} {ms:7.1f} ms  ({found} sessions)")


if __name__ == "__main__":
    main()

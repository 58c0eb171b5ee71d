"""Costs as curves: what a year's pile (agents, sessions, commands, notes) does to the steps that touch it.

Each dimension is built at 10, 100, 1,000 and 10,000 of what a heavy user accumulates (agents to 3,000),
in a temporary HIVE_HOME, and each step is timed at each size (median of a few runs) and printed against
its own smallest size, with the growth exponent (the slope of log cost over log size: 0 is flat, 1 grows
with the pile). Steps:

- agents: the tools in a request of a session with N agent files, and the request's tool bytes (OpenAI
  refuses more than 128 tools);
- sessions: ``hive sessions list`` (the latest 20) and ``--continue`` (this directory's latest) over N
  saved sessions of several directories;
- commands: listing N custom commands again (``/help``, Tab and ``/name`` do it each time);
- memory: a recall over N notes whose words are common;
- a simulated year of sessions (30 a day), pruned with the default caps: what is left against the caps;
- file edits: edit_file of one line, a miss, and read_file of 200 lines at the start and in the middle, in
  files of 1, 10 and 100 MB, each in a child process (its peak memory is the call's own).

Goals (issue #42): every step at the largest size within 1.5x its cost at 10; no request over 128 tools;
a one-line edit of a 100 MB file under 150 MB of peak memory.

Usage: python benchmarks/growth.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

RUNS = 5
WORDS = "parser lexer build release docs tests cache network window model token budget memory agent shell".split()


def timed(step: Callable[[], object], runs: int = RUNS) -> float:
    step()  # warm: the first call pays imports and the page cache
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def curve(name: str, sizes: list[int], costs: list[float], unit: str = "ms", scale: float = 1000) -> None:
    base = costs[0] or 1e-9
    slope = math.log(costs[-1] / base) / math.log(sizes[-1] / sizes[0]) if costs[-1] > 0 and base > 0 else 0.0
    points = "  ".join(
        f"{size:>6}: {cost * scale:8.2f} {unit} ({cost / base:5.2f}x)" for size, cost in zip(sizes, costs, strict=True)
    )
    goal = "yes" if costs[-1] <= 1.5 * base else "no"
    print(f"  {name:<38} {points}   exponent {slope:+.2f}, within 1.5x: {goal}")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def agents(home: Path, sizes: list[int]) -> None:
    from engine.agent import build_agent
    from engine.config.loader import Overrides, load_config
    from engine.paths import user_config_dir

    project = home / "agents-project"
    project.mkdir()
    made = 0
    counts, sizes_bytes = [], []
    for size in sizes:
        for index in range(made, size):
            name = f"{WORDS[index % len(WORDS)]}-helper-{index}"
            write(
                user_config_dir() / "agents" / f"{name}.md",
                f"---\nname: {name}\ndescription: Answers questions about {WORDS[index % len(WORDS)]} ({index}).\n"
                f"---\nYou know it well.\n",
            )
        made = size
        config = load_config(project, Overrides(model="openai/gpt-4o", api_key="sk-bench"), persist=False)
        agent = build_agent(config, approver=None, data_dir=home / "out")
        agent.loop.conversation.append({"role": "user", "content": "update the release notes"})
        tools = [spec.to_openai() for spec in agent.loop.toolset.specs()]
        counts.append(len(tools))
        sizes_bytes.append(len(json.dumps(tools)))
    print("agents (tools in a request)")
    print(
        "  "
        + "  ".join(
            f"{s:>5} agents: {c:>4} tools, {b / 1024:7.1f} KB"
            for s, c, b in zip(sizes, counts, sizes_bytes, strict=True)
        )
    )
    over = [s for s, c in zip(sizes, counts, strict=True) if c > 128]
    print(f"  goal: at most 128 tools in every request: {'NO, over at ' + str(over) if over else 'yes'}")


def sessions(home: Path, sizes: list[int]) -> None:
    from engine.paths import user_data_dir
    from engine.session_store import SessionStore

    root = user_data_dir() / "sessions"
    root.mkdir(parents=True, exist_ok=True)
    store = SessionStore(root)
    here = home / "here"
    listing, latest, made = [], [], 0
    for size in sizes:
        for number in range(made, size):
            cwd = here if number % 5 == 0 else home / f"elsewhere-{number % 7}"
            header = {"type": "session", "id": f"x{number}", "cwd": str(cwd), "model": "m", "created": 1.0 + number}
            path = root / f"20260101-000000-{number:06x}.jsonl"
            path.write_text(json.dumps(header | {"title": f"task {number}"}) + "\n")
            os.utime(path, (1_700_000_000 + number, 1_700_000_000 + number))
        made = size
        listing.append(timed(lambda: store.scan(here, 20)))
        latest.append(timed(lambda: store.latest(here)))
    print("sessions")
    curve("hive sessions list (latest 20)", sizes, listing)
    curve("--continue (this directory's latest)", sizes, latest)


def commands(home: Path, sizes: list[int]) -> None:
    from engine.custom_commands import discover_commands
    from engine.paths import user_config_dir

    project = home / "commands-project"
    (project / ".git").mkdir(parents=True)
    folder = user_config_dir() / "commands"
    costs, made = [], 0
    for size in sizes:
        for index in range(made, size):
            write(
                folder / f"cmd{index}.md",
                f"---\ndescription: Command {index}.\nargument-hint: [file]\n---\nDo {index}.\n",
            )
        made = size
        costs.append(timed(lambda: discover_commands(project, home=home)))
    print("custom commands")
    curve("listing them again (/help, Tab)", sizes, costs)


def memory(home: Path, sizes: list[int]) -> None:
    from engine.memory.store import SqliteMemory

    rng = random.Random(7)
    path = home / "memory.sqlite3"
    project = home / "memory-project"
    store = SqliteMemory(path, project=project, user="bench")
    store.remember("the first note")
    db = sqlite3.connect(path)
    costs = []
    for size in sizes:
        have = db.execute("SELECT count(*) FROM memories").fetchone()[0]
        rows = [
            (n, "bench", str(project) if n % 2 else "", " ".join(rng.choice(WORDS) for _ in range(12)), "", 0.0)
            for n in range(have + 1, size + 1)
        ]
        db.executemany("INSERT INTO memories (id, user, project, text, tags, created) VALUES (?, ?, ?, ?, ?, ?)", rows)
        db.executemany(
            "INSERT INTO memories_fts (rowid, text, tags) VALUES (?, ?, ?)", [(r[0], r[3], "") for r in rows]
        )
        db.commit()
        costs.append(timed(lambda: store.recall("parser cache")))
    db.close()
    print("memory")
    curve("recall of common words", sizes, costs)


def simulated_year(home: Path) -> None:
    from engine.sessions.pruning import prune_sessions, session_caps
    from engine.stores.options import StoresOptions

    root = home / "year-sessions"
    root.mkdir()
    start, per_day, days = 1_700_000_000.0, 30, 400
    for day in range(days):
        for n in range(per_day):
            moment = start + day * 86_400 + n * 60
            stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(moment))
            path = root / f"{stamp}-{n:06x}.jsonl"
            path.write_text(json.dumps({"type": "session", "cwd": "/p", "model": "m", "created": moment}) + "\n")
            os.utime(path, (moment, moment))
    caps = session_caps(StoresOptions())
    now = start + days * 86_400
    started = time.perf_counter()
    verdict = prune_sessions(root, caps, now=now)
    spent = time.perf_counter() - started
    kept = len(verdict.kept)
    print("a simulated year of sessions (30 a day for 400 days), pruned once with the default caps")
    print(
        f"  {days * per_day} sessions -> {kept} kept (cap {caps.max_count:,}; {caps.keep_days} days), "
        f"{len(verdict.removed)} removed in {spent * 1000:.0f} ms; within the caps: "
        f"{'yes' if kept <= caps.max_count and sum(e.size for e in verdict.kept) <= caps.max_bytes else 'NO'}"
    )


_FILE_CALL = """
import asyncio, json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from engine.tools.base import ToolContext
from engine.tools.edit import EditFileTool
from engine.tools.files import ReadFileTool
from pathlib import Path
path, arguments = Path(sys.argv[2]), json.loads(sys.argv[3])
tool = EditFileTool() if "old_string" in arguments else ReadFileTool()
context = ToolContext(cwd=path.parent, data_dir=path.parent / "data")
baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
result = asyncio.run(tool.run({"path": path.name, **arguments}, context))
spent = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - baseline
print(json.dumps({"seconds": spent, "peak_kb": peak, "success": result.success, "head": result.output[:200]}))
"""


def _file_call(path: Path, arguments: dict[str, object]) -> dict[str, object]:
    """One edit_file or read_file call in a fresh process: its time and its peak memory above the imports'."""
    import subprocess

    root = str(Path(__file__).resolve().parent.parent)
    command = [sys.executable, "-c", _FILE_CALL, root, str(path), json.dumps(arguments)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    answer: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return answer


def file_edits(home: Path) -> None:
    """edit_file and read_file on files of 1, 10 and 100 MB: time and peak memory of each call."""
    sizes = [1, 10, 100]
    line = "{:09d} some log text for this line, long enough to be ordinary\n"
    rows: dict[str, list[tuple[float, float]]] = {}
    refusals: list[str] = []
    for megabytes in sizes:
        path = home / "edits" / f"{megabytes}mb.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        count = megabytes * 1_000_000 // len(line.format(0))
        with path.open("w") as file:
            file.writelines(line.format(n) for n in range(1, count + 1))
        middle = line.format(count // 2)
        calls = {
            "edit_file one line": [
                {"old_string": middle, "new_string": middle.upper()},
                {"old_string": middle.upper(), "new_string": middle},
                {"old_string": middle, "new_string": middle.upper()},
            ],
            "edit_file not found": [{"old_string": "not in the file\n", "new_string": "x"}] * 3,
            "read_file 200 lines at start": [{"offset": 1, "limit": 200}] * 3,
            "read_file 200 lines in middle": [{"offset": count // 2, "limit": 200}] * 3,
        }
        for name, arguments in calls.items():
            answers = [_file_call(path, one) for one in arguments]
            seconds = statistics.median(float(str(a["seconds"])) for a in answers)
            peak = max(float(str(a["peak_kb"])) for a in answers) / 1024
            rows.setdefault(name, []).append((seconds, peak))
            if name != "edit_file not found" and not all(a["success"] for a in answers):
                refusals.append(f"{name} of {megabytes} MB: {str(answers[0]['head']).splitlines()[0]}")
        path.unlink()
    print("file edits (each call in its own process; peak memory above the imports')")
    for name, points in rows.items():
        curve(f"{name}, time", sizes, [seconds for seconds, _ in points])
        curve(f"{name}, peak", sizes, [peak for _, peak in points], unit="MB", scale=1)
    for refusal in refusals:
        print(f"  refused: {refusal}")
    peak = rows["edit_file one line"][-1][1]
    met = peak < 150 and not any(r.startswith("edit_file one line of 100 MB") for r in refusals)
    print(f"  goal: one-line edit of a 100 MB file under 150 MB peak: {'yes' if met else 'no'} ({peak:.0f} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes to 1,000 only")
    quick = parser.parse_args().quick
    sizes = [10, 100, 1000] if quick else [10, 100, 1000, 10000]
    with tempfile.TemporaryDirectory(prefix="hive-bench-growth-") as folder:
        home = Path(folder)
        os.environ["HIVE_HOME"] = str(home / "hive-home")
        agents(home, [10, 100, 1000] if quick else [10, 100, 1000, 3000])
        sessions(home, sizes)
        commands(home, sizes[:3] + ([3000] if not quick else []))
        memory(home, sizes if quick else [*sizes, 100_000])
        simulated_year(home)
        file_edits(home)


if __name__ == "__main__":
    main()

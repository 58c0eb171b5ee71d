"""Costs as curves: what a year's pile (agents, sessions, commands, notes) does to the steps that touch it.

Each dimension is built at 10, 100, 1,000 and 10,000 of what a heavy user accumulates (agents to 3,000),
in a temporary HIVE_HOME, and each step is timed at each size (median of a few runs) and printed against
its own smallest size, with the growth exponent (the slope of log cost over log size: 0 is flat, 1 grows
with the pile). Steps:

- agents: the tools in a request of a session with N agent files, and the request's size (its messages and
  tools) against a bare request's, with no agent files (OpenAI refuses more than 128 tools);
- sessions: ``hive sessions list --all --limit 10``, ``--continue`` (this directory's latest) and this
  directory's latest 20 over N saved sessions of several directories;
- checkpoints: with N saved turns of a project (to 5,000, the count cap), ``hive checkpoints list``, the
  turn undo reaches first, and a session's start (settling, the daily prune);
- commands: with N custom commands, Tab's listing, running one (``/name``) and ``/help``;
- REPL start with N custom commands: the real REPL in a pseudo-terminal, until its prompt is up, until
  text typed at once is shown, and until the first Tab completes a command;
- skills and agent files: found again in the same process (a session's start after ``/new``; a new
  process has no cache, and a skill or agent file edited in place is seen by the next session);
- memory: a recall over N notes whose words are common;
- a session's start in a new process: 1,000 broken skills against good ones, flow-style agent lists
  against block ones;
- a simulated year of each store (sessions, a project's checkpoint turns, its saved outputs), pruned once
  with the default caps: what is left against the caps;
- file edits: edit_file of one line, a miss, and read_file of 200 lines at the start and in the middle, in
  files of 1, 10 and 100 MB, each in a child process (its peak memory is the call's own).

Goals (issue #42): every step at the largest size within 1.5x its cost at 10 (a step whose own work grows
with the pile, because it shows or checks every item, says so instead); no request over 128 tools or over
twice a bare request's size; a one-line edit of a 100 MB file under 150 MB of peak memory; every store
within its caps after a simulated year.

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
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sized
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

if TYPE_CHECKING:
    from engine.stores.caps import Caps

T = TypeVar("T")
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


def curve(
    name: str,
    sizes: list[int],
    costs: list[float],
    unit: str = "ms",
    scale: float = 1000,
    *,
    why_no_goal: str = "",
    goal_at: int | None = None,
) -> None:
    """One step's cost at each size against its smallest, its growth exponent, and whether it meets the goal.

    ``why_no_goal``: the step's own work grows with the pile (it shows or reads every item by design), so the
    1.5x goal does not apply to it; said instead of the verdict. ``goal_at``: the size the goal is judged at
    (the issue's 10,000) when the curve goes further; else its largest.
    """
    base = costs[0] or 1e-9
    slope = math.log(costs[-1] / base) / math.log(sizes[-1] / sizes[0]) if costs[-1] > 0 and base > 0 else 0.0
    points = "  ".join(
        f"{size:>6}: {cost * scale:8.2f} {unit} ({cost / base:5.2f}x)" for size, cost in zip(sizes, costs, strict=True)
    )
    judged = costs[sizes.index(goal_at)] if goal_at in sizes else costs[-1]
    within = f"within 1.5x{f' at {goal_at:,}' if goal_at in sizes else ''}: {'yes' if judged <= 1.5 * base else 'no'}"
    verdict = f"no goal: {why_no_goal}" if why_no_goal else within
    print(f"  {name:<38} {points}   exponent {slope:+.2f}, {verdict}")


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
    for size in [0, *sizes]:
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
        messages = [{"role": "system", "content": agent.loop.instructions}, *agent.loop.conversation.view()]
        sizes_bytes.append(len(json.dumps({"messages": messages, "tools": tools})))
    bare_count, bare_bytes = counts.pop(0), sizes_bytes.pop(0)
    print("agents (tools in a request)")
    print(f"  no agent files (the bare request): {bare_count} tools, request {bare_bytes / 1024:.1f} KB")
    print(
        "  "
        + "  ".join(
            f"{s:>5} agents: {c:>4} tools, request {b / 1024:7.1f} KB ({b / bare_bytes:.2f}x)"
            for s, c, b in zip(sizes, counts, sizes_bytes, strict=True)
        )
    )
    over = [s for s, c in zip(sizes, counts, strict=True) if c > 128]
    print(f"  goal: at most 128 tools in every request: {'NO, over at ' + str(over) if over else 'yes'}")
    heavy = [s for s, b in zip(sizes, sizes_bytes, strict=True) if b > 2 * bare_bytes]
    print(f"  goal: no request over twice the bare request's size: {'NO, over at ' + str(heavy) if heavy else 'yes'}")


def sessions(home: Path, sizes: list[int]) -> None:
    from engine.paths import user_data_dir
    from engine.session_store import SessionStore

    root = user_data_dir() / "sessions"
    store = SessionStore(root)
    here = home / "here"
    everywhere, listing, latest, made = [], [], [], 0
    for size in sizes:
        for number in range(made, size):  # as hive makes them: the file, and its lines in the sessions index
            cwd = here if number % 5 == 0 else home / f"elsewhere-{number % 7}"
            writer = store.create(cwd=cwd, model="m", scrub=str, title=f"task {number}")
            writer.append_message({"role": "user", "content": f"task {number}"})
            writer.close()
            os.utime(writer.path, (1_700_000_000 + number, 1_700_000_000 + number))
        made = size
        everywhere.append(timed(lambda: store.scan(None, 10)))
        latest.append(timed(lambda: store.latest(here)))
        listing.append(timed(lambda: store.scan(here, 20)))
    print("sessions (a fifth of them made in this directory)")
    curve("sessions list --all --limit 10", sizes, everywhere)
    curve("--continue (this directory's latest)", sizes, latest)
    curve("sessions list (this dir's latest 20)", sizes, listing, why_no_goal="it shows 2 sessions at 10, 20 from 100")


def checkpoints(home: Path, sizes: list[int]) -> None:
    """A project's checkpoint store with N saved turns: ``hive checkpoints list``, what undo reads, a session's start."""
    from engine.checkpoints.attach import checkpoints_for
    from engine.checkpoints.store import Change, CheckpointStore, FileState, Manifest
    from engine.checkpoints.undo import next_to_undo
    from engine.config.loader import Overrides, load_config
    from hive_cli.checkpoints_command import checkpoint_lines

    project = home / "checkpoints-project"
    (project / ".git").mkdir(parents=True)
    store = CheckpointStore.for_project(project)
    config = load_config(project, Overrides(model="openai/gpt-4o", api_key="sk-bench"))
    listing, undo, start, made = [], [], [], 0
    now = time.time()
    for size in sizes:
        for n in range(made, size):
            moment = now - (size - n)  # the newest last; all within the age cap
            digest = store.put_bytes(b"version %d\n" % n)
            before = FileState(kind="file", blob=digest, mode=0o644)
            turn = f"{int(moment * 1e9):020d}-{n:06x}"
            path = str(project / f"file{n % 50}.py")
            store.save(Manifest(id=turn, created=moment, cwd=str(project), changes={path: Change(before, None)}))
        made = size
        long_ago = now - 86_400  # the folder as a later session meets it (a note of a folder changed in the last
        os.utime(store.turns, (long_ago, long_ago))  # two seconds is not trusted: its stamp may not have moved)
        listing.append(timed(lambda: checkpoint_lines(project, 10)))
        undo.append(timed(lambda: next_to_undo(store)))
        start.append(timed(lambda: checkpoints_for(config)))  # pruned once today already: a stamp's stat
    print("checkpoints (a project's saved turns)")
    curve("hive checkpoints list --limit 10", sizes, listing)
    curve("undo: the turn it reaches first", sizes, undo)
    curve("a session's start (settle, daily prune)", sizes, start)


def command_file(index: int) -> str:
    return f"---\ndescription: Command {index}.\nargument-hint: [file]\n---\nDo {index}.\n"


def settle(folder: Path) -> None:
    """A year's pile: every file and folder under ``folder`` last changed long ago (as the REPL meets them)."""
    for path in [folder, *folder.rglob("*")]:
        os.utime(path, (1_700_000_000, 1_700_000_000))


def commands(home: Path, sizes: list[int]) -> None:
    from engine.custom_commands import current_command, discover_commands, listed_commands
    from engine.paths import user_config_dir

    project = home / "commands-project"
    (project / ".git").mkdir(parents=True)
    folder = user_config_dir() / "commands"
    tab, help_, run, made = [], [], [], 0
    for size in sizes:
        for index in range(made, size):
            write(folder / f"cmd{index}.md", command_file(index))
        made = size
        settle(folder)
        tab.append(timed(lambda: listed_commands(project, home=home)))
        help_.append(timed(lambda: discover_commands(project, home=home)))
        run.append(timed(lambda: current_command(listed_commands(project, home=home).commands["cmd7"])))
    print("custom commands")
    curve("Tab (kept while no folder changed)", sizes, tab)
    curve("/name (its own file checked)", sizes, run)
    curve("/help (every file checked)", sizes, help_, why_no_goal="it checks, and prints, every command")


def repl_start(home: Path, sizes: list[int]) -> None:
    """The real REPL in a pseudo-terminal, N command files in the person's commands folder: how soon it is up."""
    import pexpect

    from benchmarks.support.compiled import compile_hive

    compile_hive()
    hive_home = home / "repl-home"
    folder = hive_home / "config" / "commands"
    env = dict(
        os.environ, HIVE_HOME=str(hive_home), TERM="xterm-256color", HIVE_LOCAL_SERVERS="", PROMPT_TOOLKIT_NO_CPR="1"
    )
    args = ["-m", "hive_cli", "--model", "openai/bench", "--api-base", "http://127.0.0.1:9/v1", "-C", str(home)]

    def start() -> tuple[float, float, float]:
        started = time.perf_counter()
        child = pexpect.spawn(sys.executable, args, env=env, encoding="utf-8", dimensions=(30, 100), timeout=30)
        child.send("hello-hive")  # typed at once, before the program is ready
        child.expect("›")
        prompt_at = time.perf_counter() - started
        child.expect("hello-hive")
        echo_at = time.perf_counter() - started
        child.send("\x15/cmd\t")  # the first Tab: the commands, found ahead in a thread or now
        child.expect_exact(" (user)")  # the menu of completions, with their descriptions
        tab_at = time.perf_counter() - started
        child.terminate(force=True)
        return prompt_at, echo_at, tab_at

    made, runs = 0, 3
    prompt, echo, tab = [], [], []
    for size in sizes:
        for index in range(made, size):
            write(folder / f"cmd{index}.md", command_file(index))
        made = size
        settle(folder)
        start()  # warm the page cache
        samples = [start() for _ in range(runs)]
        prompt.append(statistics.median(s[0] for s in samples))
        echo.append(statistics.median(s[1] for s in samples))
        tab.append(statistics.median(s[2] for s in samples))
    print(f"REPL start with N custom commands (a pseudo-terminal, median of {runs})")
    curve("prompt up", sizes, prompt)
    curve("typed text shown", sizes, echo)
    curve("first Tab shows the commands", sizes, tab, why_no_goal="a new process reads every command file once")


def skills_and_agents(home: Path, sizes: list[int]) -> None:
    """Skills and agent files found at a session's start: in a new process, and again in the same one (/new)."""
    from engine.delegate.definitions import load_agents
    from engine.skills.discovery import discover_skills
    from engine.skills.model import SkillRoot

    project = home / "skills-project"
    (project / ".git").mkdir(parents=True)
    os.environ["HIVE_HOME"] = str(home / "skills-home")  # none of the agents step's files
    skills_root, agents_folder = home / "skills", project / ".ironhive" / "agents"
    roots = [SkillRoot(skills_root, "user")]
    skills, agents, made = [], [], 0
    for size in sizes:
        for index in range(made, size):
            name = f"skill-{index}"
            write(skills_root / name / "SKILL.md", f"---\nname: {name}\ndescription: Does {index}.\n---\nDo it.\n")
        made = size
        skills.append(timed(lambda: discover_skills(roots)))
    made = 0
    for size in sizes:
        for index in range(made, size):
            write(agents_folder / f"helper-{index}.md", f"---\nname: helper-{index}\ndescription: Helps.\n---\nHelp.\n")
        made = size
        agents.append(timed(lambda: load_agents(project)))
    print("skills and agent files at a session's start (a new process has no cache; /new in the REPL has)")
    every = "a session's start finds every one (a file edited in place is seen)"
    curve("skills, again in the same process", sizes, skills, why_no_goal=every)
    curve("agent files, again in the same process", sizes, agents, why_no_goal=every)


FIND_AT_START = """
import sys, time
import yaml  # imported once by whichever file needs it first: before the clock, for both shapes alike
from pathlib import Path
from engine.delegate.definitions import load_agents
from engine.skills.discovery import discover_skills
from engine.skills.model import SkillRoot
started = time.perf_counter()
if sys.argv[1] == "skills":
    discover_skills([SkillRoot(Path(sys.argv[2]), "user")])
else:
    load_agents(Path(sys.argv[2]))
print(time.perf_counter() - started)
"""


def broken_and_good(home: Path, count: int = 1000) -> None:
    """A session's start in a new process: broken frontmatter against good, flow-style lists against block ones.

    PyYAML's import (some 20 ms, once per process, by the first file outside the fast readers) is made before
    the clock starts for both shapes, so what is compared is the cost per file.
    """
    skills = {
        "good": "---\nname: {name}\ndescription: Does {n}.\n---\nDo it.\n",
        "broken": "---\nname: {name}\ndescription: Does: {n}: here\nbad: [unclosed\n---\nDo it.\n",
    }
    agents = {
        "block": "---\nname: {name}\ndescription: Helps {n}.\ntools:\n  - read_file\n  - grep_files\n---\nHelp.\n",
        "flow": "---\nname: {name}\ndescription: Helps {n}.\ntools: [read_file, grep_files]\n---\nHelp.\n",
    }
    env = dict(os.environ, HIVE_HOME=str(home / "start-home"), PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    print(f"a session's start in a new process with {count} skills or agent files (median of 3; yaml imported first)")
    for kind, shapes, where in (
        ("skills", skills, "s/{name}/SKILL.md"),
        ("agents", agents, ".ironhive/agents/{name}.md"),
    ):
        costs = {}
        for shape, text in shapes.items():
            folder = home / f"start-{kind}-{shape}"
            for n in range(count):
                write(folder / where.format(name=f"{kind[:-1]}-{n}"), text.format(name=f"{kind[:-1]}-{n}", n=n))
            target = folder / "s" if kind == "skills" else folder
            run = [sys.executable, "-c", FIND_AT_START, kind, str(target)]
            first = float(subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout)
            again = [
                float(subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout) for _ in range(3)
            ]
            costs[shape] = (first, statistics.median(again))
        (good, (good_first, good_again)), (bad, (bad_first, bad_again)) = costs.items()
        print(
            f"  {kind}: {good} {good_again * 1000:.0f} ms, {bad} {bad_again * 1000:.0f} ms ({bad_again / good_again:.2f}x; "
            f"the very first start {bad_first * 1000:.0f} vs {good_first * 1000:.0f} ms); "
            f"goal: a {bad} file costs no more than a {good} one (within 1.5x): {'yes' if bad_again <= 1.5 * good_again else 'no'}"
        )


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
    curve("recall of common words", sizes, costs, goal_at=10_000)


def simulated_year(home: Path) -> None:
    """A year of use in each store, pruned once with the default caps at its end: what is left against the caps."""
    from engine.sessions.pruning import prune_sessions, session_caps
    from engine.stores.options import StoresOptions

    start, days = 1_700_000_000.0, 400
    now = start + days * 86_400
    print("a simulated year (400 days), each store pruned once at its end with the default caps")
    root = home / "year-sessions"
    root.mkdir()
    for day in range(days):
        for n in range(30):
            moment = start + day * 86_400 + n * 60
            stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(moment))
            path = root / f"{stamp}-{n:06x}.jsonl"
            path.write_text(json.dumps({"type": "session", "cwd": "/p", "model": "m", "created": moment}) + "\n")
            os.utime(path, (moment, moment))
    caps = session_caps(StoresOptions())
    verdict, spent = timed_once(lambda: prune_sessions(root, caps, now=now))
    kept_bytes = sum(entry.size for entry in verdict.kept)
    report("sessions (30 a day)", days * 30, len(verdict.kept), verdict.removed, spent, caps, kept_bytes)
    year_of_turns(home, start, days, now)
    year_of_outputs(home, start, days, now)


def year_of_turns(home: Path, start: float, days: int, now: float) -> None:
    from engine.checkpoints.options import CheckpointOptions
    from engine.checkpoints.pruning import checkpoint_caps, prune_checkpoints
    from engine.checkpoints.store import Change, CheckpointStore, FileState, Manifest

    store = CheckpointStore(home / "year-checkpoints")
    for day in range(days):
        for n in range(30):
            moment = start + day * 86_400 + n * 60
            digest = store.put_bytes(b"version %d of a file\n" % (day * 30 + n) * 40)
            os.utime(store.blob_path(digest), (moment, moment))
            before = FileState(kind="file", blob=digest, mode=0o644)
            turn = f"{int(moment * 1e9):020d}-{n:06x}"
            store.save(Manifest(id=turn, created=moment, cwd="/p", changes={"/p/a.py": Change(before, None)}))
    caps = checkpoint_caps(CheckpointOptions())
    verdict, spent = timed_once(lambda: prune_checkpoints(store, caps, now=now))
    turns = verdict.turns
    report("checkpoint turns (30 a day)", days * 30, len(turns.kept), turns.removed, spent, caps, verdict.kept_bytes)


def year_of_outputs(home: Path, start: float, days: int, now: float) -> None:
    from engine.stores.options import StoresOptions
    from engine.stores.outputs import output_caps, prune_outputs

    project = home / "year-project"
    (project / ".git").mkdir(parents=True)
    folder = project / ".hive" / "outputs"
    folder.mkdir(parents=True)
    for day in range(days):
        for n in range(5):
            moment = start + day * 86_400 + n * 600
            path = folder / f"command-{day:04d}{n}.log"
            with path.open("wb") as saved:
                saved.truncate(8 * 1024 * 1024)  # sparse: its size counts, the disk does not fill
            os.utime(path, (moment, moment))
    caps = output_caps(StoresOptions())
    verdict, spent = timed_once(lambda: prune_outputs(project, caps, now=now))
    kept_bytes = sum(entry.size for entry in verdict.kept)
    report("saved outputs (5 a day, 8 MB each)", days * 5, len(verdict.kept), verdict.removed, spent, caps, kept_bytes)


def timed_once(step: Callable[[], T]) -> tuple[T, float]:
    started = time.perf_counter()
    result = step()
    return result, time.perf_counter() - started


def report(what: str, made: int, kept: int, removed: Sized, spent: float, caps: Caps, kept_bytes: int) -> None:
    within = kept <= caps.max_count and kept_bytes <= caps.max_bytes
    print(
        f"  {what:<36} {made:>6} made -> {kept:>5} kept, {kept_bytes / 2**20:8.1f} MB (caps {caps.keep_days} days, "
        f"{caps.max_count:,}, {caps.max_bytes / 2**30:.0f} GB); {len(removed)} removed in {spent * 1000:.0f} ms; "
        f"within the caps: {'yes' if within else 'NO'}"
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
def high_water_kb():
    # VmHWM is this process's own peak; ru_maxrss also counts the parent's size when it forked this one
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
baseline = high_water_kb()
started = time.perf_counter()
result = asyncio.run(tool.run({"path": path.name, **arguments}, context))
spent = time.perf_counter() - started
peak = high_water_kb()
answer = {"seconds": spent, "peak_kb": peak, "imports_kb": baseline, "success": result.success}
print(json.dumps(answer | {"head": result.output[:200]}))
"""


def _file_call(path: Path, arguments: dict[str, object]) -> dict[str, object]:
    """One edit_file or read_file call in a fresh process: its time, the process's peak memory and the imports'."""
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
    rows: dict[str, list[tuple[float, float, float]]] = {}
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
            imports = min(float(str(a["imports_kb"])) for a in answers) / 1024
            rows.setdefault(name, []).append((seconds, peak, imports))
            if name != "edit_file not found" and not all(a["success"] for a in answers):
                refusals.append(f"{name} of {megabytes} MB: {str(answers[0]['head']).splitlines()[0]}")
        path.unlink()
    print("file edits (each call in its own process: its time, and the process's peak memory)")
    whole_file = {
        "edit_file one line": "it rewrites the whole file",
        "edit_file not found": "it reads the whole file",
        "read_file 200 lines in middle": "it counts the lines before its window",
    }
    for name, points in rows.items():
        curve(f"{name}, time", sizes, [seconds for seconds, _, _ in points], why_no_goal=whole_file.get(name, ""))
        peaks = "  ".join(f"{size:>6}: {peak:6.1f} MB" for size, (_, peak, _) in zip(sizes, points, strict=True))
        print(f"  {name + ', peak memory':<38} {peaks}   (the imports alone: {points[0][2]:.1f} MB)")
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
        checkpoints(home, [10, 100, 1000] if quick else [10, 100, 1000, 5000])
        commands(home, sizes[:3] + ([3000] if not quick else []))
        repl_start(home, sizes[:3] + ([3000] if not quick else []))
        skills_and_agents(home, sizes[:3] + ([3000] if not quick else []))
        broken_and_good(home)
        os.environ["HIVE_HOME"] = str(home / "hive-home")
        memory(home, sizes if quick else [*sizes, 100_000])
        simulated_year(home)
        file_edits(home)


if __name__ == "__main__":
    main()

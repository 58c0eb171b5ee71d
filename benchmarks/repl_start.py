"""How soon the REPL is interactive: launch `hive` in a real pseudo-terminal, type at once, and time
until the typed text is shown. Goal: within 350 ms of launch.

Also printed, in the same run: the time to the first prompt, and a bare prompt-toolkit prompt
(`python -c` with a PromptSession) as the floor. This machine's speed swings, so the goal is also read
as a ratio to the floor of the same round: 350 ms was set where the floor took 234 ms (1.50x).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pexpect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.support.compiled import compile_hive

RUNS = 9
FLOOR_RATIO_GOAL = 0.350 / 0.234
"""The goal of 350 ms over the bare prompt's 234 ms on the machine where the goal was set."""
WORD = "hello-hive"
FLOOR = "from prompt_toolkit import PromptSession; PromptSession().prompt('› ')"


def time_to_echo(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds from launch to the prompt, and to the typed word being shown."""
    started = time.perf_counter()
    child = pexpect.spawn(sys.executable, args, env=env, encoding="utf-8", dimensions=(30, 100), timeout=20)
    child.send(WORD)  # typed straight away, before the program is ready, as an impatient user does
    child.expect("›")
    prompt_at = time.perf_counter() - started
    child.expect(WORD)
    echo_at = time.perf_counter() - started
    child.sendcontrol("c")
    child.sendcontrol("d")
    child.terminate(force=True)
    return prompt_at, echo_at


def main() -> None:
    compile_hive()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(
            os.environ,
            HIVE_HOME=str(Path(tmp) / "home"),
            TERM="xterm-256color",
            HIVE_LOCAL_SERVERS="",
            PROMPT_TOOLKIT_NO_CPR="1",
        )
        hive = ["-m", "hive_cli", "--model", "openai/bench", "--api-base", "http://127.0.0.1:9/v1", "-C", tmp]
        floor = ["-c", FLOOR]
        time_to_echo(hive, env)  # warm the file cache and .pyc files
        results: dict[str, list[tuple[float, float]]] = {"hive": [], "bare prompt-toolkit": []}
        for _ in range(RUNS):
            results["hive"].append(time_to_echo(hive, env))
            results["bare prompt-toolkit"].append(time_to_echo(floor, env))
    print(f"REPL start in a pseudo-terminal, median of {RUNS} paired runs")
    for name, samples in results.items():
        prompt = statistics.median(s[0] for s in samples)
        echo = statistics.median(s[1] for s in samples)
        print(f"  {name:22s} prompt after {prompt * 1000:6.0f} ms   typed text shown after {echo * 1000:6.0f} ms")
    echo = statistics.median(s[1] for s in results["hive"])
    print(f"goal: typed text shown within 350 ms: {'met' if echo <= 0.35 else 'NOT met'} ({echo * 1000:.0f} ms)")
    pairs = zip(results["hive"], results["bare prompt-toolkit"], strict=True)
    ratio = statistics.median(hive[1] / floor[1] for hive, floor in pairs)
    verdict = "met" if ratio <= FLOOR_RATIO_GOAL else "NOT met"
    print(
        f"  against the same round's bare prompt: {ratio:.2f}x  (350 ms / 234 ms = {FLOOR_RATIO_GOAL:.2f}x: {verdict})"
    )


if __name__ == "__main__":
    main()

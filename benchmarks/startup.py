"""Start-up cost of `hive --version` and `hive --help` against a bare `import click`, in the same run.

Commands run alternately (paired) so machine noise hits all of them alike; the figures are medians.
hive's command line is click; a CLI built on it cannot start faster than importing it.
Goals: --version no slower than `import click`, --help at most 2x; neither imports litellm or mcp.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.support.compiled import compile_hive

ROOTS = 15
HEAVY = ("litellm", "mcp", "openai", "httpx", "pydantic", "rich", "prompt_toolkit", "tiktoken", "yaml")
HIVE = [sys.executable, "-m", "hive_cli"]
COMMANDS = {
    "python -c 'import click'": [sys.executable, "-c", "import click"],
    "hive --version": [*HIVE, "--version"],
    "hive --help": [*HIVE, "--help"],
}


def wall(cmd: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def heavy_imports(cmd: list[str]) -> list[str]:
    """Top-level packages from HEAVY that the command imports (read from -X importtime)."""
    trace = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], capture_output=True, text=True, check=True).stderr
    seen = set()
    for line in trace.splitlines():
        name = line.rsplit("|", 1)[-1].strip()
        top = name.split(".")[0]
        if top in HEAVY:
            seen.add(top)
    return sorted(seen)


def main() -> None:
    compile_hive()
    for cmd in COMMANDS.values():  # warm the file cache and .pyc files
        wall(cmd)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(ROOTS):
        for name, cmd in COMMANDS.items():
            times[name].append(wall(cmd))
    base = statistics.median(times["python -c 'import click'"])
    print(f"start-up, median of {ROOTS} paired runs (Python {sys.version.split()[0]}, {Path(sys.executable).parent})")
    for name, samples in times.items():
        median = statistics.median(samples)
        heavy = heavy_imports(COMMANDS[name]) if name.startswith("hive") else []
        print(f"  {name:28s} {median * 1000:7.1f} ms   {median / base:4.2f}x click   heavy imports: {heavy or 'none'}")
    version_ratio = statistics.median(times["hive --version"]) / base
    help_ratio = statistics.median(times["hive --help"]) / base
    print(f"goal --version <= 1.0x click: {'met' if version_ratio <= 1.0 else 'NOT met'} ({version_ratio:.2f}x)")
    print(f"goal --help    <= 2.0x click: {'met' if help_ratio <= 2.0 else 'NOT met'} ({help_ratio:.2f}x)")


if __name__ == "__main__":
    main()

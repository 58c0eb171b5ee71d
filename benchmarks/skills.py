"""Validating 1,000 skill folders: `hive skills validate` against the reference validator (skills-ref 0.1.1).

The folders are copies of the real-world skills in tests/fixtures/real_skills (each under its own
numbered parent so the folder names, and so the verdicts, stay as they are): long and short
bodies, block-scalar descriptions, metadata maps, and the invalid ones, flow lists included.

Measured (medians of paired runs, each a fresh process, start-up included):
  - hive: one `hive skills validate P1 ... P1000`;
  - the reference as a library: one Python process calling skills_ref.validator.validate on every folder
    (the fastest the reference can go);
  - the reference CLI: `agentskills validate P`, one process per folder as the command takes one path
    (timed over a sample of folders and scaled to 1,000 unless --all-cli is given).
Goals: hive under 1 s, and at least 3x faster than the reference library loop.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FOLDERS = 1000
ROUNDS = 5
FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real_skills"
BIN = Path(sys.executable).parent
REFERENCE_LOOP = """
import sys
from pathlib import Path
from skills_ref.validator import validate
failed = sum(1 for p in sys.argv[1:] if validate(Path(p)))
print(failed)
"""


def make_folders(base: Path, count: int = FOLDERS) -> list[Path]:
    """``count`` skill folders under ``base``, cycling through the real-world fixtures."""
    sources = sorted(path.parent for path in FIXTURES.glob("*/*/SKILL.md"))
    folders = []
    for index in range(count):
        source = sources[index % len(sources)]
        target = base / f"{index:04d}" / source.name
        shutil.copytree(source, target)
        folders.append(target)
    return folders


def wall(cmd: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def failures(cmd: list[str], cwd: Path) -> int:
    """How many folders a command reports as failed (counted from its output)."""
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    if REFERENCE_LOOP in cmd:
        return int(done.stdout)
    return done.stderr.count("Validation failed for ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli-sample", type=int, default=100, help="folders to time the per-folder reference CLI on")
    parser.add_argument("--all-cli", action="store_true", help="time the reference CLI on all 1,000 folders")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        folders = [str(path.relative_to(base)) for path in make_folders(base)]
        hive = [sys.executable, "-m", "hive_cli", "skills", "validate", "--", *folders]
        reference = [sys.executable, "-c", REFERENCE_LOOP, *folders]
        for cmd in (hive, reference):
            wall(cmd, base)  # warm caches and .pyc files
        times: dict[str, list[float]] = {"hive": [], "reference library": []}
        for _ in range(ROUNDS):
            times["hive"].append(wall(hive, base))
            times["reference library"].append(wall(reference, base))
        hive_s = statistics.median(times["hive"])
        library_s = statistics.median(times["reference library"])
        sample = folders if args.all_cli else folders[: args.cli_sample]
        cli = str(BIN / "agentskills")
        started = time.perf_counter()
        for folder in sample:
            subprocess.run([cli, "validate", "--", folder], cwd=base, capture_output=True, check=False)
        cli_s = (time.perf_counter() - started) * len(folders) / len(sample)
        print(f"validating {len(folders)} skill folders (copies of {FIXTURES.name}), median of {ROUNDS} runs")
        print(f"  hive skills validate, one process      {hive_s:8.3f} s   {failures(hive, base)} invalid")
        print(f"  reference library, one process         {library_s:8.3f} s   {failures(reference, base)} invalid")
        scaled = "" if args.all_cli else f" (timed on {len(sample)}, scaled)"
        print(f"  reference CLI, one process per folder  {cli_s:8.3f} s{scaled}")
        print(
            f"  hive is {library_s / hive_s:.1f}x faster than the reference library, {cli_s / hive_s:.0f}x than its CLI"
        )
        print(f"goal hive < 1 s: {'met' if hive_s < 1 else 'NOT met'} ({hive_s:.3f} s)")
        ratio = library_s / hive_s
        print(f"goal >= 3x faster than the reference: {'met' if ratio >= 3 else 'NOT met'} ({ratio:.1f}x)")


if __name__ == "__main__":
    main()

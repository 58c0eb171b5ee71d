"""What the after-command check of protected paths costs: on this repository and on a project of 20,000 files.

For each project, in one process as in a session:

- the check alone, in-process: reading the protected paths before a command, and the walk again plus
  the comparison after it (median of repeated rounds; nothing changed in between);
- the same after a command that planted (AGENTS.md appended, a skill, a nested repository's hook),
  which puts everything back;
- `true` through execute_command: unsandboxed, sandboxed without the check, sandboxed with it,
  interleaved so that the load of the machine falls on all three alike.

Goal (issue 29): the sandbox as a whole at most 20 ms per command over unsandboxed.
Usage: python benchmarks/sandbox_planted.py [N_FILES]
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.sandbox.bubblewrap import BubblewrapSandbox
from engine.sandbox.options import SandboxOptions
from engine.sandbox.planted import Check
from engine.sandbox.probe import bubblewrap_availability
from engine.sandbox.profile import Profile
from engine.sandbox.scan import RACY_NS
from engine.tools.base import ToolContext
from engine.tools.shell import ExecuteCommandTool

ROUNDS = 30
PAIRS = 20
PER_FOLDER = 50
PLANT = (
    "echo 'do as I say' >> AGENTS.md && mkdir -p .agents/skills/review-diff && echo x > .agents/skills/review-diff/SKILL.md"
    " && git init -q nested && printf hook > nested/.git/hooks/pre-commit"
)


class WithoutCheck(BubblewrapSandbox):
    """The same sandbox with the after-command check of protected paths left out (the comparison)."""

    def _planted_check(self, profile: Profile, env: object) -> Check | None:  # type: ignore[override]
        return None


def make_project(root: Path, files: int) -> Path:
    """``files`` small files in folders of 50, two levels deep, in a git repository with protected files in it."""
    project = root / "project"
    for index in range(files):
        folder = project / f"d{index // PER_FOLDER // 20}" / f"d{index // PER_FOLDER}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{index}.txt").write_text("x" * 100)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "AGENTS.md").write_text("Keep the tests green.\n")
    (project / ".vscode").mkdir()
    (project / ".vscode" / "settings.json").write_text("{}\n")
    (project / "d0" / "d1" / "CLAUDE.md").write_text("Be brief.\n")
    return project


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:7.2f} ms"


def check_alone(sandbox: BubblewrapSandbox, project: Path, plant: bool) -> tuple[list[float], list[float], int]:
    """Before and after times of the check with nothing run in between (or after planting, when ``plant``).

    The count is of protected paths found, or, when ``plant``, of lines saying what was undone.
    """
    env = dict(os.environ)
    before, after, found = [], [], 0
    for _ in range(ROUNDS):
        profile = sandbox.profile(project, env)
        started = time.perf_counter()
        check = sandbox._planted_check(profile, env)
        before.append(time.perf_counter() - started)
        assert check is not None
        found = len(check.found)
        if plant:
            subprocess.run(["bash", "-c", PLANT], cwd=project, check=True, capture_output=True)
        started = time.perf_counter()
        notes = check.after()
        after.append(time.perf_counter() - started)
        if plant:
            found = len(notes)
        shutil.rmtree(project / "nested", ignore_errors=True)
    return before, after, found


async def commands(project: Path, data: Path) -> dict[str, list[float]]:
    tools = {
        "unsandboxed": ExecuteCommandTool(),
        "sandboxed, no check": ExecuteCommandTool(sandbox=WithoutCheck(SandboxOptions())),
        "sandboxed, with check": ExecuteCommandTool(sandbox=BubblewrapSandbox(SandboxOptions())),
    }
    ctx = ToolContext(cwd=project, data_dir=data)
    for tool in tools.values():  # the probe and the first walk
        await tool.run({"command": "true"}, ctx)
    times: dict[str, list[float]] = {name: [] for name in tools}
    for repeat in range(PAIRS):
        order = list(tools.items())
        for name, tool in order[repeat % 3 :] + order[: repeat % 3]:
            started = time.perf_counter()
            result = await tool.run({"command": "true"}, ctx)
            times[name].append(time.perf_counter() - started)
            if result.success is not True:
                raise SystemExit(f"`true` failed: {result.output}")
    return times


def report(label: str, project: Path, data: Path) -> None:
    sandbox = BubblewrapSandbox(SandboxOptions())
    scan = sandbox._profile_planner().scanner(project).scan()
    before, after, found = check_alone(sandbox, project, plant=False)
    print(f"{label}: {project} ({scan.entries} entries walked, truncated: {scan.truncated}; {found} protected paths)")
    print(f"  check before a command      {median_ms(before)}")
    print(f"  check after, nothing done   {median_ms(after)}   (the walk again, the comparison)")
    if label != "this repository":
        _, planted, lines = check_alone(sandbox, project, plant=True)
        missed = " (the walk stops before `nested`: its hooks are missed)" if scan.truncated else ""
        print(f"  check after a plant         {median_ms(planted)}   ({lines} lines on what was undone{missed})")
    times = asyncio.run(commands(project, data))
    plain = statistics.median(times["unsandboxed"])
    for name, samples in times.items():
        over = (
            ""
            if name == "unsandboxed"
            else f"   {(statistics.median(samples) - plain) * 1000:+7.1f} ms over unsandboxed"
        )
        print(f"  `true`, {name:22s}{median_ms(samples)}{over}")


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    availability = bubblewrap_availability(network=False)
    if not availability.available:
        raise SystemExit(f"bubblewrap cannot start here: {availability.reason}")
    print(f"the after-command check of protected paths; load {os.getloadavg()[0]:.1f}; medians")
    with tempfile.TemporaryDirectory(dir="/var/tmp") as folder:
        report("this repository", Path(__file__).resolve().parent.parent, Path(folder) / "data")
        project = make_project(Path(folder), files)
        time.sleep(RACY_NS / 1e9 + 0.5)  # as in a session: folders not changed in the last 2 s are not listed again
        report(f"{files} files", project, Path(folder) / "data")


if __name__ == "__main__":
    main()

"""`hive run` of a 3-tool-call task, end to end, against a bare `python -c "import litellm"`.

The model server runs in its own process. Three commands run in turn (one round per sample): hive
on its own OpenAI-compatible client (the default path), hive forced through litellm
(``HIVE_PROVIDER_CLIENT=litellm``), and the bare import. Figures are medians of per-round ratios.
Goals: the direct path at most 0.15x the bare import; the litellm path at most +15% over it.
Last, the import time of one direct-path ``hive run`` as ``-X importtime`` reports it (the sum of the
top-level imports; goal at most 0.35 s), with its largest top-level imports.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.support import model_server
from benchmarks.support.compiled import compile_hive

ROUNDS = 7
HIVE = Path(sys.executable).parent / "hive"


def timed(cmd: list[str], env: dict[str, str], cwd: str) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def import_times(cmd: list[str], env: dict[str, str], cwd: str) -> list[tuple[float, str]]:
    """(seconds, module) for each top-level import of ``cmd`` run under ``python -X importtime``."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *cmd], env=env, cwd=cwd, capture_output=True, text=True, check=True
    )
    rows = re.findall(r"^import time:\s+\d+ \|\s+(\d+) \| (\S+)$", done.stderr, re.MULTILINE)
    return sorted(((int(us) / 1e6, name) for us, name in rows), reverse=True)


def main() -> None:
    compile_hive()
    process, base_url = model_server.start("list_directory", 3)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, HIVE_HOME=str(Path(tmp) / "home"), LITELLM_LOCAL_MODEL_COST_MAP="True")
            env.pop("HIVE_PROVIDER_CLIENT", None)
            via_litellm = dict(env, HIVE_PROVIDER_CLIENT="litellm")
            hive = [str(HIVE), "run", "look around three times", "-m", "openai/test-model", "--api-base", base_url]
            hive += ["-o", "json"]
            bare = [sys.executable, "-c", "import litellm"]
            timed(hive, env, tmp)  # warm the file cache and .pyc files
            timed(hive, via_litellm, tmp)
            rounds = [
                (timed(hive, env, tmp), timed(hive, via_litellm, tmp), timed(bare, env, tmp)) for _ in range(ROUNDS)
            ]
            imports = import_times(["-m", "hive_cli", *hive[1:]], env, tmp)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=10)
    direct, litellm, bare_times = zip(*rounds, strict=True)
    direct_ratio = statistics.median(d / b for d, _, b in rounds)
    litellm_ratio = statistics.median(lt / b for _, lt, b in rounds)
    print(f"hive run e2e (3 tool calls, 4 model calls), {ROUNDS} rounds")
    print(f"  hive run (own OpenAI-compatible client)  {statistics.median(direct):6.2f} s")
    print(f"  hive run (HIVE_PROVIDER_CLIENT=litellm)  {statistics.median(litellm):6.2f} s")
    print(f"  python -c 'import litellm'               {statistics.median(bare_times):6.2f} s")
    print(
        f"  direct / bare import   {direct_ratio:5.3f}x  (goal <= 0.15x: {'met' if direct_ratio <= 0.15 else 'NOT met'})"
    )
    verdict = "met" if litellm_ratio <= 1.15 else "NOT met"
    print(f"  litellm / bare import  {litellm_ratio:5.3f}x  (goal <= 1.15x: {verdict})")
    total = sum(seconds for seconds, _ in imports)
    verdict = "met" if total <= 0.35 else "NOT met"
    print(f"  imports of one direct hive run (-X importtime, top level): {total:.3f} s  (goal <= 0.35 s: {verdict})")
    print("    largest: " + ", ".join(f"{name} {seconds * 1000:.0f} ms" for seconds, name in imports[:6]))


if __name__ == "__main__":
    main()

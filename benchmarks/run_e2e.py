"""`hive run` of a 3-tool-call task, end to end, against a bare `python -c "import litellm"`.

The model server runs in its own process. Both commands run alternately (paired) and the figure is
the median of the per-pair ratios. Goal: hive adds at most 15% over the bare import.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.support import model_server
from benchmarks.support.compiled import compile_hive

PAIRS = 7
HIVE = Path(sys.executable).parent / "hive"


def timed(cmd: list[str], env: dict[str, str], cwd: str) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def main() -> None:
    compile_hive()
    process, base_url = model_server.start("list_directory", 3)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, HIVE_HOME=str(Path(tmp) / "home"), LITELLM_LOCAL_MODEL_COST_MAP="True")
            hive = [str(HIVE), "run", "look around three times", "-m", "openai/test-model", "--api-base", base_url]
            hive += ["-o", "json"]
            bare = [sys.executable, "-c", "import litellm"]
            timed(hive, env, tmp)  # warm the file cache and .pyc files
            pairs = [(timed(hive, env, tmp), timed(bare, env, tmp)) for _ in range(PAIRS)]
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=10)
    ratios = [h / b for h, b in pairs]
    hive_median = statistics.median(h for h, _ in pairs)
    bare_median = statistics.median(b for _, b in pairs)
    ratio = statistics.median(ratios)
    print(f"hive run e2e (3 tool calls, 4 model calls), {PAIRS} paired runs")
    print(f"  hive run               {hive_median:6.2f} s")
    print(f"  python -c 'import litellm' {bare_median:6.2f} s")
    print(
        f"  ratio (median of pairs) {ratio:5.3f}  (+{(ratio - 1) * 100:.1f}%, goal <= +15%: {'met' if ratio <= 1.15 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()

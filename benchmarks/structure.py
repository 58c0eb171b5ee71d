"""The seam's targets, printed: session and loop sizes, build_agent's length, import cycles, CLI reach-ins.

Issue 30's targets: engine/session.py under ~200 lines, build_agent under ~40, no import cycle through
the composition root (engine/agent.py), run/loop.py (was engine/loop.py) unchanged or smaller (394 lines before), no place in
hive_cli reaching past Session into the loop, one glob language (no fnmatch in engine/). Measured from
the source with ast (see benchmarks/support/structure.py); tests/engine/test_structure.py holds them.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.support.structure import measure

LOOP_BEFORE = 394


def main() -> None:
    shape = measure()
    name, longest = shape.function_max
    print(f"engine/: {shape.modules} modules, {shape.lines:,} lines; over 400 lines: {len(shape.modules_over_400)}")
    for module in shape.modules_over_400:
        print(f"  {module}")
    print(f"functions: median {shape.function_median:g} lines, longest {name} ({longest})")
    print(f"engine/session.py {shape.session_lines} lines (goal <= ~200: {_met(shape.session_lines <= 210)})")
    print(f"build_agent {shape.build_agent_lines} lines (goal <= ~40: {_met(shape.build_agent_lines <= 42)})")
    print(
        f"engine/run/loop.py {shape.loop_lines} lines (goal <= {LOOP_BEFORE}: {_met(shape.loop_lines <= LOOP_BEFORE)})"
    )
    print(f"import cycles in engine/: {len(shape.cycles)}; through engine.agent: {len(shape.root_cycles)}")
    for cycle in shape.cycles:
        print(f"  {' <-> '.join(cycle)}")
    print(f"hive_cli reaching past Session into the loop: {len(shape.cli_reach_ins)} {list(shape.cli_reach_ins)}")
    print(f"engine modules importing fnmatch: {len(shape.fnmatch_users)} {list(shape.fnmatch_users)}")


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


if __name__ == "__main__":
    main()

"""What MCP costs through hive.

1. Per-call latency of the everything server's `echo` over stdio: the raw SDK client against hive's
   MCP toolset (the manager alone, and behind the permission gate, mode filter and guards as a
   session runs it), in the same run, calls alternating. Goal: hive at most 1.2x the raw SDK.
2. Time from launching the REPL to its prompt (and to typed text shown) with three stdio servers
   configured against none. Goal: not delayed by them (the servers start in the background).
3. `hive run` of a task that calls no tool, with one configured but unused stdio server (everything)
   against none, paired runs: the time from launch to the model server receiving the first request,
   and the run's CPU (hive and the processes it reaped). The server's tool list is cached by a warm-up
   run, as on any run after the first. Goals: first request at most 1.3x, CPU at most 1.5x.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.support.compiled import compile_hive
from benchmarks.support.first_request import RunCost, run_costs
from benchmarks.support.mcp_servers import EVERYTHING, three_servers_yaml, time_to_prompt
from engine.events import ToolCall
from engine.mcp.config import McpServers, ServerConfig
from engine.mcp.manager import McpManager
from engine.policy.compose import guarded_toolset
from engine.policy.config import load_permissions
from engine.policy.gate import ApproveEverything
from engine.policy.modes import ModeManager
from engine.tools.base import ToolContext, Toolset
from engine.trust.review import review, trust_project
from engine.workspace import open_workspace

CALLS = 400
START_RUNS = 5
RUN_RUNS = 7
ARGS = {"message": "x"}


async def per_call(tmp: Path, quiet: TextIO) -> dict[str, list[float]]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    (tmp / ".ironhive").mkdir(exist_ok=True)
    (tmp / ".ironhive" / "permissions.yaml").write_text(
        "permissions:\n  include_defaults: true\n  mcp_tools:\n    - {pattern: 'mcp__everything__*', action: allow}\n"
    )
    os.environ["HIVE_HOME"] = str(tmp / "home")  # the project's rules count once the person trusts the project
    trust_project(review(open_workspace(tmp)))
    server = ServerConfig(
        name="everything", transport="stdio", source=tmp, command=str(EVERYTHING), args=("stdio",), cwd=tmp
    )
    manager = McpManager(McpServers(servers=(server,)), tmp / "logs")
    gated: Toolset = guarded_toolset(manager, load_permissions(tmp), ApproveEverything(), ModeManager())
    ctx = ToolContext(cwd=tmp, data_dir=tmp)
    call = ToolCall(id="c", name="mcp__everything__echo", arguments=ARGS)
    samples: dict[str, list[float]] = {"raw SDK": [], "hive manager": [], "hive gated": []}
    await manager.start()
    await manager.wait_ready()
    params = StdioServerParameters(command=str(EVERYTHING), args=["stdio"])
    try:
        async with Client(stdio_client(params, errlog=quiet)) as raw:
            await time_calls(raw, manager, gated, call, ctx, samples)
    finally:
        await manager.stop()
    return samples


async def time_calls(
    raw: Any, manager: McpManager, gated: Toolset, call: ToolCall, ctx: ToolContext, samples: dict[str, list[float]]
) -> None:
    """Alternate the three paths call by call, so drift in the machine's load hits them alike."""
    for _ in range(20):  # warm every path
        await raw.call_tool("echo", ARGS)
        await gated.call(call, ctx)
    for _ in range(CALLS):
        started = time.perf_counter()
        await raw.call_tool("echo", ARGS)
        samples["raw SDK"].append(time.perf_counter() - started)
        started = time.perf_counter()
        assert (await manager.call(call, ctx)).success
        samples["hive manager"].append(time.perf_counter() - started)
        started = time.perf_counter()
        assert (await gated.call(call, ctx)).success
        samples["hive gated"].append(time.perf_counter() - started)


def start_times(tmp: Path) -> dict[str, list[tuple[float, float]]]:
    compile_hive()
    none, three = tmp / "none", tmp / "three"
    for folder in (none, three):
        (folder / ".ironhive").mkdir(parents=True)
    (three / ".ironhive" / "plugins.yaml").write_text(three_servers_yaml(three))
    env = dict(
        os.environ,
        HIVE_HOME=str(tmp / "home"),
        TERM="xterm-256color",
        HIVE_LOCAL_SERVERS="",
        PROMPT_TOOLKIT_NO_CPR="1",
    )
    approve = [sys.executable, "-m", "hive_cli", "mcp", "approve", "--all", "-C", str(three)]
    subprocess.run(approve, env=env, check=True, capture_output=True)  # the project's servers start once approved
    base = ["-m", "hive_cli", "--model", "openai/bench", "--api-base", "http://127.0.0.1:9/v1", "-C"]
    time_to_prompt([*base, str(none)], env)  # warm the file cache
    results: dict[str, list[tuple[float, float]]] = {"no MCP servers": [], "three stdio servers": []}
    for _ in range(START_RUNS):
        results["no MCP servers"].append(time_to_prompt([*base, str(none)], env))
        results["three stdio servers"].append(time_to_prompt([*base, str(three)], env))
    return results


def idle_server_costs(tmp: Path) -> dict[str, list[RunCost]]:
    """Paired ``hive run`` costs in a project with no MCP server and in one with an unused everything server."""
    none, one = tmp / "run-none", tmp / "run-one"
    for folder in (none, one):
        (folder / ".ironhive").mkdir(parents=True)
    (one / ".ironhive" / "plugins.yaml").write_text(
        f"plugins:\n  everything: {{command: {EVERYTHING}, args: [stdio]}}\n"
    )
    env = dict(os.environ, HIVE_HOME=str(tmp / "run-home"), LITELLM_LOCAL_MODEL_COST_MAP="True")
    approve = [sys.executable, "-m", "hive_cli", "mcp", "approve", "--all", "-C", str(one)]
    subprocess.run(approve, env=env, check=True, capture_output=True)
    return run_costs({"no MCP servers": none, "one unused stdio server": one}, env, RUN_RUNS)


def print_idle_server_costs(costs: dict[str, list[RunCost]]) -> None:
    none, one = costs["no MCP servers"], costs["one unused stdio server"]
    print(f"hive run of a task that calls no tool, median of {RUN_RUNS} paired runs")
    for label, runs in costs.items():
        first = statistics.median(r.first_request_s for r in runs)
        cpu = statistics.median(r.cpu_s for r in runs)
        print(f"  {label:24s} first request after {first * 1000:6.0f} ms   CPU {cpu * 1000:6.0f} ms")
    first_ratio = statistics.median(o.first_request_s / n.first_request_s for n, o in zip(none, one, strict=True))
    cpu_ratio = statistics.median(o.cpu_s / n.cpu_s for n, o in zip(none, one, strict=True))
    print(f"  first request: {first_ratio:.2f}x  (goal <= 1.3x: {'met' if first_ratio <= 1.3 else 'NOT met'})")
    print(f"  CPU:           {cpu_ratio:.2f}x  (goal <= 1.5x: {'met' if cpu_ratio <= 1.5 else 'NOT met'})")


def main() -> None:
    with tempfile.TemporaryDirectory() as name, open(os.devnull, "w") as quiet:
        tmp = Path(name)
        samples = asyncio.run(per_call(tmp, quiet))
        starts = start_times(tmp)
        idle = idle_server_costs(tmp)
    print(f"MCP per-call latency, everything server over stdio, echo, {CALLS} calls each, alternating")
    medians = {label: statistics.median(values) for label, values in samples.items()}
    for label, values in samples.items():
        p95 = sorted(values)[int(0.95 * (len(values) - 1))]
        print(f"  {label:14s} median {medians[label] * 1000:6.3f} ms   p95 {p95 * 1000:6.3f} ms")
    ratio = medians["hive gated"] / medians["raw SDK"]
    print(
        f"  ratio hive gated / raw SDK: {ratio:.2f}x  (manager alone {medians['hive manager'] / medians['raw SDK']:.2f}x)"
    )
    print(f"goal: at most 1.2x: {'met' if ratio <= 1.2 else 'NOT met'}")
    print(f"REPL start in a pseudo-terminal, median of {START_RUNS} paired runs")
    for label, runs in starts.items():
        prompt = statistics.median(r[0] for r in runs)
        echo = statistics.median(r[1] for r in runs)
        print(f"  {label:20s} prompt after {prompt * 1000:6.0f} ms   typed text shown after {echo * 1000:6.0f} ms")
    delay = statistics.median(r[1] for r in starts["three stdio servers"]) - statistics.median(
        r[1] for r in starts["no MCP servers"]
    )
    print(f"goal: not delayed by the servers: {'met' if delay <= 0.05 else 'NOT met'} ({delay * 1000:+.0f} ms)")
    print_idle_server_costs(idle)


if __name__ == "__main__":
    main()

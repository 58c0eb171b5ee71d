"""The MCP manager against real servers over stdio: the reference servers and the suite's own misbehaving one."""

from __future__ import annotations

import asyncio
import secrets
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from engine.events import ToolCall
from engine.mcp.config import McpServers, ServerConfig
from engine.mcp.manager import McpManager
from engine.mcp.tools import exposed_name
from engine.policy.config import PermissionConfig
from engine.policy.guards import Allow, Block
from engine.tools.base import ToolContext, ToolResult
from tests.support.mcp_servers import EVERYTHING, FILESYSTEM, python_server, stdio
from tests.support.processes import gone_within, processes_with

Progress = list[tuple[str, float | None, float | None]]


def context(tmp_path: Path, seen: Progress | None = None) -> ToolContext:
    def progress(status: str, value: float | None = None, total: float | None = None) -> None:
        if seen is not None:
            seen.append((status, value, total))

    return ToolContext(cwd=tmp_path, data_dir=tmp_path, progress=progress)


@asynccontextmanager
async def running(*servers: ServerConfig, tmp_path: Path, **options: Any) -> AsyncIterator[McpManager]:
    manager = McpManager(McpServers(servers=servers), tmp_path / "logs", **options)
    await manager.start()
    try:
        await asyncio.wait_for(manager.wait_ready(), 20)
        yield manager
    finally:
        await manager.stop()


async def call(manager: McpManager, tool: str, ctx: ToolContext, /, **arguments: Any) -> ToolResult:
    return await manager.call(ToolCall(id=secrets.token_hex(4), name=tool, arguments=arguments), ctx)


def run(body: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(body())


def test_the_everything_server_offers_its_tools_prefixed_and_echo_answers(tmp_path: Path) -> None:
    async def body() -> None:
        async with running(stdio("everything", EVERYTHING, "stdio"), tmp_path=tmp_path) as manager:
            names = [spec.name for spec in manager.specs()]
            assert "mcp__everything__echo" in names and "mcp__everything__get-sum" in names
            echo = next(spec for spec in manager.specs() if spec.name == "mcp__everything__echo")
            assert (echo.kind, echo.source) == ("mcp", "everything")
            assert echo.parameters["properties"]["message"]["type"] == "string"
            assert await call(manager, "mcp__everything__echo", context(tmp_path), message="hi") == ToolResult(
                "Echo: hi"
            )
            (status,) = manager.status()
            assert (status.state, status.error, status.protocol_version) == ("ready", None, "2025-11-25")
            assert status.resources > 0 and "simple-prompt" in status.prompts
            assert await manager.is_healthy("everything")

    run(body)


def test_progress_reaches_the_call_in_order_with_numbers(tmp_path: Path) -> None:
    seen: Progress = []

    async def body() -> None:
        async with running(stdio("everything", EVERYTHING, "stdio"), tmp_path=tmp_path) as manager:
            result = await call(
                manager,
                "mcp__everything__trigger-long-running-operation",
                context(tmp_path, seen),
                duration=0.4,
                steps=4,
            )
            assert result.success is True and "completed" in result.output

    run(body)
    assert [(value, total) for _, value, total in seen] == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_resources_are_read_through_a_read_only_tool(tmp_path: Path) -> None:
    async def body() -> None:
        async with running(stdio("everything", EVERYTHING, "stdio"), tmp_path=tmp_path) as manager:
            spec = next(s for s in manager.specs() if s.name == "mcp__everything__read_resource")
            assert spec.read_only
            uri = "demo://resource/static/document/architecture.md"
            result = await call(manager, spec.name, context(tmp_path), uri=uri)
            assert result.success is True and "Architecture" in result.output
            missing = await call(manager, spec.name, context(tmp_path), uri="demo://nothing/here")
            assert missing.success is False

    run(body)


def test_the_filesystem_server_lists_its_allowed_directory(tmp_path: Path) -> None:
    allowed = str(tmp_path.resolve())

    async def body() -> None:
        async with running(stdio("fs", FILESYSTEM, str(tmp_path)), tmp_path=tmp_path) as manager:
            result = await call(manager, "mcp__fs__list_allowed_directories", context(tmp_path))
            assert result.success is True and allowed in result.output
            read_only = {s.name for s in manager.specs() if s.read_only}
            assert "mcp__fs__read_text_file" in read_only and "mcp__fs__write_file" not in read_only

    run(body)


def test_a_failing_and_a_hanging_server_delay_neither_each_other_nor_a_good_one(tmp_path: Path) -> None:
    """Judged by the order of events, not by a clock: a loaded machine slows every server alike."""

    async def body() -> None:
        servers = (
            stdio("missing", tmp_path / "no-such-server"),
            python_server("stuck", "--hang-at-start", startup_timeout=6),
            stdio("everything", EVERYTHING, "stdio"),
        )
        manager = McpManager(McpServers(servers=servers), tmp_path / "logs")
        await manager.start()
        everything, stuck = manager.connection("everything"), manager.connection("stuck")
        assert everything is not None and stuck is not None
        assert everything.state == "starting"  # start() waited for no server
        await asyncio.wait_for(everything.wait_settled(), 10)
        assert everything.state == "ready"
        assert stuck.state == "starting"  # still inside its timeout: the good server did not wait for it
        await asyncio.wait_for(manager.wait_ready(), 10)
        states = {s.name: (s.state, s.error) for s in manager.status()}
        assert states["missing"][0] == "failed" and "no such program" in str(states["missing"][1])
        assert states["stuck"] == ("failed", "did not connect within 6 s")
        assert all(not s.name.startswith(("mcp__missing", "mcp__stuck")) for s in manager.specs())
        await manager.stop()

    run(body)


def test_is_error_results_go_back_as_failed_results(tmp_path: Path) -> None:
    async def body() -> None:
        async with running(python_server(), tmp_path=tmp_path) as manager:
            result = await call(manager, "mcp__py__fail", context(tmp_path))
            assert result.success is False and "Error executing tool fail" in result.output

    run(body)


def test_a_call_that_times_out_fails_and_the_server_stays_usable(tmp_path: Path) -> None:
    async def body() -> None:
        async with running(python_server(tool_timeout=0.5), tmp_path=tmp_path) as manager:
            result = await call(manager, "mcp__py__hang", context(tmp_path))  # hang would answer in an hour
            assert result.success is False and "timed out after 0.5 s" in result.output
            assert await call(manager, "mcp__py__echo", context(tmp_path), text="still here") == ToolResult(
                "still here"
            )

    run(body)


def test_a_crashed_server_gives_an_error_and_the_next_call_reconnects(tmp_path: Path) -> None:
    async def body() -> None:
        async with running(python_server(), tmp_path=tmp_path) as manager:
            crashed = await call(manager, "mcp__py__crash", context(tmp_path))
            assert crashed.success is False and "went away" in crashed.output
            assert not await manager.is_healthy("py")
            again = await call(manager, "mcp__py__echo", context(tmp_path), text="back")
            assert again == ToolResult("back")
            assert manager.status()[0].state == "ready"

    run(body)


def test_a_changed_tool_list_is_listed_again(tmp_path: Path) -> None:
    async def body() -> None:
        async with running(python_server(), tmp_path=tmp_path) as manager:
            assert "mcp__py__fresh" not in {s.name for s in manager.specs()}
            await call(manager, "mcp__py__grow", context(tmp_path), name="fresh")
            deadline = time.monotonic() + 30  # a failure guard only
            while "mcp__py__fresh" not in {s.name for s in manager.specs()}:
                assert time.monotonic() < deadline, "the new tool never appeared"
                await asyncio.sleep(0.02)
            assert await call(manager, "mcp__py__fresh", context(tmp_path)) == ToolResult("fresh says hi")

    run(body)


def test_a_tool_added_after_the_first_listing_is_marked_and_asked_even_where_its_server_is_allowed(
    tmp_path: Path,
) -> None:
    from engine.events import ToolCall
    from engine.policy.gate import Judgement
    from engine.policy.permissions import PermissionPolicy
    from engine.policy.rules import Layer, Rule, RuleBook

    allowed = PermissionConfig(
        book=RuleBook(
            (Layer(source="mine", rules=(Rule(category="mcp_tools", pattern="mcp__py__*", action="allow"),)),)
        )
    )

    async def body() -> None:
        async with running(python_server(), tmp_path=tmp_path) as manager:
            listed = asyncio.Event()
            manager.listen(lambda: listed.set() if "mcp__py__fresh" in {s.name for s in manager.specs()} else None)
            await call(manager, "mcp__py__grow", context(tmp_path), name="fresh")
            await listed.wait()  # the server's list_changed was read and the tools listed again
            specs = {s.name: s for s in manager.specs()}
            assert specs["mcp__py__fresh"].added_later and not specs["mcp__py__echo"].added_later
            policy = PermissionPolicy(allowed)

            def judge(name: str) -> Judgement:
                return policy.judge_call(ToolCall(id="c", name=name, arguments={}), context(tmp_path), specs[name])

            assert judge("mcp__py__echo").verdict == "allow"
            late = judge("mcp__py__fresh")
            assert late.verdict == "ask" and "added mcp__py__fresh after the session started" in late.reason

    run(body)


def test_read_only_hints_and_titles_are_kept(tmp_path: Path) -> None:
    async def body() -> None:
        async with running(python_server(), tmp_path=tmp_path) as manager:
            specs = {s.name: s for s in manager.specs()}
            assert specs["mcp__py__peek"].read_only and not specs["mcp__py__echo"].read_only
            tools = {t.name: t for t in manager.status()[0].tools}
            assert tools["mcp__py__peek"].title == "Peek"

    run(body)


def test_include_and_exclude_tools_narrow_what_is_offered(tmp_path: Path) -> None:
    async def body() -> None:
        server = stdio("everything", EVERYTHING, "stdio", include_tools=("get-*", "echo"), exclude_tools=("get-env",))
        async with running(server, tmp_path=tmp_path) as manager:
            names = {s.name.removeprefix("mcp__everything__") for s in manager.specs()}
            assert "echo" in names and "get-sum" in names
            assert "get-env" not in names and "trigger-long-running-operation" not in names

    run(body)


class Recorder:
    name = "recorder"

    def __init__(self, verdict: Allow | Block | Exception) -> None:
        self.verdict = verdict
        self.results: list[str] = []

    async def before(self, call: ToolCall) -> Allow | Block:
        if isinstance(self.verdict, Exception):
            raise self.verdict
        return self.verdict

    async def check(self, call: ToolCall, result: ToolResult) -> Allow:
        self.results.append(result.output)
        return Allow()


@pytest.mark.parametrize("verdict", [Block("not this one"), RuntimeError("guard broke")])
def test_a_guard_that_blocks_or_raises_keeps_the_call_from_the_server(tmp_path: Path, verdict: Any) -> None:
    guard = Recorder(verdict)

    async def body() -> None:
        async with running(python_server(), tmp_path=tmp_path, guards=[guard]) as manager:
            result = await call(manager, "mcp__py__crash", context(tmp_path))
            assert result.success is False and result.output.startswith("Tool call blocked by guard")
            assert manager.status()[0].state == "ready"  # the crash was never sent
            assert await manager.is_healthy("py")

    run(body)
    assert guard.results == []


def test_an_allowing_guard_sees_the_result(tmp_path: Path) -> None:
    guard = Recorder(Allow())

    async def body() -> None:
        async with running(python_server(), tmp_path=tmp_path, guards=[guard]) as manager:
            assert (await call(manager, "mcp__py__echo", context(tmp_path), text="seen")).output == "seen"

    run(body)
    assert guard.results == ["seen"]


def test_stopping_leaves_no_server_process_behind(tmp_path: Path) -> None:
    marker = f"hive-test-{secrets.token_hex(6)}"

    async def body() -> None:
        flag = tmp_path / "hang-arrived"
        async with running(
            python_server("py", "--marker", marker, "--hang-flag", str(flag)), tmp_path=tmp_path
        ) as manager:
            assert processes_with(marker)
            hung = asyncio.create_task(call(manager, "mcp__py__hang", context(tmp_path)))
            while not flag.exists():  # the call is in flight once the server has it
                assert not hung.done(), hung
                await asyncio.sleep(0.02)
        await asyncio.wait_for(hung, 30)

    run(body)
    assert gone_within(marker, 5)


def test_a_server_that_exits_at_start_fails_and_points_to_its_stderr(tmp_path: Path) -> None:
    quits = stdio("quits", sys.executable, "-c", "import sys; sys.stderr.write('bad token\\n'); sys.exit(1)")

    async def body() -> None:
        async with running(quits, tmp_path=tmp_path) as manager:
            (status,) = manager.status()
            assert status.state == "failed" and status.log_path is not None
            assert str(status.log_path) in str(status.error)
            result = await call(manager, "mcp__quits__anything", context(tmp_path))
            assert result.success is False

    run(body)
    assert "bad token" in (tmp_path / "logs" / "quits.log").read_text()


def test_long_tool_names_are_cut_to_what_providers_accept_and_stay_distinct() -> None:
    first, second = exposed_name("server", "t" * 80 + "a"), exposed_name("server", "t" * 80 + "b")
    assert len(first) == len(second) == 64 and first != second
    assert exposed_name("server", "get.sum") == "mcp__server__get_sum"


def test_stopping_also_ends_what_the_server_left_running_in_its_process_group(tmp_path: Path) -> None:
    marker = f"hive-child-{secrets.token_hex(6)}"

    async def body() -> None:
        async with running(python_server("py", "--spawn-child", marker), tmp_path=tmp_path) as manager:
            assert manager.status()[0].state == "ready"
            assert processes_with(marker)

    run(body)
    assert gone_within(marker, 5), "the server's child outlived hive's stop"


def test_a_server_that_exits_between_calls_is_seen_as_failed_and_comes_back_on_the_next_call(tmp_path: Path) -> None:
    async def body() -> None:
        async with running(python_server(), tmp_path=tmp_path) as manager:
            assert (await call(manager, "mcp__py__crash_later", context(tmp_path), delay=0.2)).success
            deadline = time.monotonic() + 30  # a failure guard only
            while manager.status()[0].state != "failed":
                assert time.monotonic() < deadline, manager.status()[0]
                await asyncio.sleep(0.02)
            assert manager.status()[0].error == "the server exited"
            assert await call(manager, "mcp__py__echo", context(tmp_path), text="again") == ToolResult("again")

    run(body)

"""The approval gate over the real built-in tools: refusals, questions, answers, "always", and the hitl pause."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from msgspec.structs import replace

from engine.events import ApprovalRequested, ApprovalResolved, Event, ModeChanged, ToolCall
from engine.policy.compose import guarded_toolset
from engine.policy.config import default_permissions
from engine.policy.gate import ApprovalRequest, ApproveEverything, Approver, Decision
from engine.policy.modes import ModeManager, is_read_only
from engine.tools.base import ToolContext, ToolResult, Toolset, ToolSpec
from engine.tools.builtin import builtin_tools
from engine.tools.registry import ToolRegistry
from engine.tools.waits import DecisionWaits


class ScriptedApprover:
    """Stands in for the person at the terminal: answers with ``answer(request)`` and keeps every request."""

    def __init__(self, answer: Callable[[ApprovalRequest], Decision]) -> None:
        self.answer = answer
        self.requests: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return self.answer(request)


def make_toolset(approver: Approver | None, modes: ModeManager | None = None) -> Toolset:
    return guarded_toolset(ToolRegistry(builtin_tools()), default_permissions(), approver, modes or ModeManager())


def run(toolset: Toolset, ctx: ToolContext, name: str, **arguments: Any) -> ToolResult:
    return asyncio.run(toolset.call(ToolCall(id="c1", name=name, arguments=arguments), ctx))


@pytest.fixture
def events(ctx: ToolContext) -> list[Event]:
    collected: list[Event] = []
    ctx.emit = collected.append
    return collected


def test_a_denied_call_comes_back_as_a_refusal_and_nobody_is_asked(ctx: ToolContext, events: list[Event]) -> None:
    approver = ScriptedApprover(lambda r: Decision(allowed=True))
    result = run(make_toolset(approver), ctx, "execute_command", command="touch made && rm -rf /")
    assert result.success is False
    assert result.output.startswith("The execute_command call was not run: denied by policy:")
    assert "rm -rf *" in result.output
    assert approver.requests == [] and events == []
    assert not (ctx.cwd / "made").exists()


def test_an_ask_with_nobody_to_ask_is_refused(ctx: ToolContext) -> None:
    result = run(make_toolset(None), ctx, "write_file", path="notes.md", content="x")
    assert result.success is False
    assert "nobody to approve it" in result.output and "notes.md" in result.output
    assert not (ctx.cwd / "notes.md").exists()


def test_an_allowed_call_runs_without_asking(ctx: ToolContext) -> None:
    approver = ScriptedApprover(lambda r: Decision(allowed=False))
    result = run(make_toolset(approver), ctx, "write_file", path="src/new.py", content="x = 1\n")
    assert result.success is True and approver.requests == []
    assert (ctx.cwd / "src" / "new.py").read_text() == "x = 1\n"


def test_the_approver_sees_the_diff_of_an_edit_and_the_mode_is_hitl_meanwhile(
    ctx: ToolContext, events: list[Event]
) -> None:
    modes = ModeManager()
    seen_modes = []

    def answer(request: ApprovalRequest) -> Decision:
        seen_modes.append(modes.current)
        return Decision(allowed=True)

    approver = ScriptedApprover(answer)
    result = run(
        make_toolset(approver, modes), ctx, "edit_file", path="settings.yaml", old_string="a: 1", new_string="a: 2"
    )
    assert result.success is True
    assert (ctx.cwd / "settings.yaml").read_text() == "a: 2\n"
    request = approver.requests[0]
    assert request.summary == "edit settings.yaml"
    assert request.diff is not None
    assert "--- a/settings.yaml" in request.diff and "-a: 1\n+a: 2\n" in request.diff
    assert request.rule == "edit: *.yaml" and request.source == "built-in defaults"
    assert request.remember == "edit_file: settings.yaml"
    assert seen_modes == ["hitl"] and modes.current == "work"
    assert [e.kind for e in events] == ["mode_changed", "approval_requested", "approval_resolved", "mode_changed"]
    first, last = events[0], events[-1]
    assert isinstance(first, ModeChanged) and (first.previous, first.current) == ("work", "hitl")
    assert isinstance(last, ModeChanged) and (last.previous, last.current) == ("hitl", "work")
    assert isinstance(events[1], ApprovalRequested) and events[1].summary == "edit settings.yaml"


def test_a_new_file_shows_as_a_diff_from_nothing(ctx: ToolContext) -> None:
    approver = ScriptedApprover(lambda r: Decision(allowed=False, reason="not now"))
    run(make_toolset(approver), ctx, "write_file", path="notes.md", content="one\ntwo\n")
    diff = approver.requests[0].diff
    assert diff is not None and "--- /dev/null" in diff and "+++ b/notes.md" in diff and "+one\n+two\n" in diff


def test_an_edit_of_a_file_over_the_diff_limit_says_so_instead_of_calling_it_not_text(ctx: ToolContext) -> None:
    (ctx.cwd / "big.log").write_text("a line of text\n" * 70_000)  # about 1 MB and more
    approver = ScriptedApprover(lambda r: Decision(allowed=False, reason="not now"))
    run(make_toolset(approver), ctx, "edit_file", path="big.log", old_string="a line", new_string="b line")
    assert approver.requests[0].diff == "(big.log is over 1 MB: no diff is shown)"
    assert approver.requests[0].warning == ""  # no checkpoints here: nothing to warn of


def test_a_denial_with_a_message_tells_the_model_why(ctx: ToolContext, events: list[Event]) -> None:
    approver = ScriptedApprover(lambda r: Decision(allowed=False, reason="use the staging config instead"))
    result = run(make_toolset(approver), ctx, "write_file", path="package.json", content="{}")
    assert result.success is False and "use the staging config instead" in result.output
    resolved = [e for e in events if isinstance(e, ApprovalResolved)]
    assert resolved and resolved[0].allowed is False
    assert (ctx.cwd / "package.json").read_text() == "{}\n"


def test_always_remembers_exactly_the_pattern_shown_and_nothing_broader(ctx: ToolContext) -> None:
    approver = ScriptedApprover(lambda r: Decision(allowed=True, remember=r.remember))
    toolset = make_toolset(approver)
    assert run(toolset, ctx, "execute_command", command="id -u").success
    assert approver.requests[0].remember == "execute_command: id -u"
    assert run(toolset, ctx, "execute_command", command="id -u").success
    assert len(approver.requests) == 1
    run(toolset, ctx, "execute_command", command="id -u -n")
    run(toolset, ctx, "execute_command", command="id -u; id -g")
    assert len(approver.requests) == 3


def test_a_remembered_pattern_never_overrides_a_deny(ctx: ToolContext) -> None:
    approver = ScriptedApprover(lambda r: Decision(allowed=True, remember=r.remember))
    toolset = make_toolset(approver)
    run(toolset, ctx, "execute_command", command="echo hi")
    result = run(toolset, ctx, "execute_command", command="echo hi && sudo ls")
    assert "denied by policy" in result.output


def test_an_approver_that_answers_with_a_broader_pattern_records_nothing(ctx: ToolContext) -> None:
    approver = ScriptedApprover(lambda r: Decision(allowed=True, remember="execute_command: *"))
    toolset = make_toolset(approver)
    run(toolset, ctx, "execute_command", command="id -u")
    run(toolset, ctx, "execute_command", command="id -u")
    assert len(approver.requests) == 2


def test_an_approver_that_fails_refuses_the_call(ctx: ToolContext, events: list[Event]) -> None:
    def broken(request: ApprovalRequest) -> Decision:
        raise RuntimeError("terminal went away")

    result = run(make_toolset(ScriptedApprover(broken)), ctx, "write_file", path="x.txt", content="x")
    assert result.success is False and "the approval failed (RuntimeError: terminal went away)" in result.output
    assert not (ctx.cwd / "x.txt").exists()
    assert events[-1] == ModeChanged(previous="hitl", current="work", reason="decision taken")


def test_yes_answers_asks_but_deny_still_denies(ctx: ToolContext, events: list[Event]) -> None:
    toolset = make_toolset(ApproveEverything())
    assert run(toolset, ctx, "write_file", path="x.txt", content="x").success
    assert [e.kind for e in events] == ["approval_requested", "approval_resolved"], "no hitl pause without a person"
    assert (ctx.cwd / "x.txt").exists()
    assert "denied by policy" in run(toolset, ctx, "read_file", path="secrets/key.txt").output


class ParkedWaits(DecisionWaits):
    """A call's wait record that also says when the call began waiting for a person (``parked``)."""

    def __init__(self) -> None:
        super().__init__()
        self.parked = asyncio.Event()

    @contextmanager
    def waiting(self) -> Iterator[None]:
        self.parked.set()
        with super().waiting():
            yield


def test_no_tool_starts_while_a_person_is_deciding(ctx: ToolContext) -> None:
    async def scenario() -> list[str]:
        order: list[str] = []
        release = asyncio.Event()
        asked = asyncio.Event()

        class WaitingApprover:
            async def decide(self, request: ApprovalRequest) -> Decision:
                asked.set()
                await release.wait()
                order.append("decided")
                return Decision(allowed=True)

        modes = ModeManager()
        toolset = make_toolset(WaitingApprover(), modes)
        asking = asyncio.create_task(toolset.call(ToolCall(id="a", name="read_file", arguments={"path": ".env"}), ctx))
        await asked.wait()
        held = ParkedWaits()
        reading = asyncio.create_task(
            toolset.call(ToolCall(id="b", name="read_file", arguments={"path": "README.md"}), replace(ctx, waits=held))
        )
        # Whichever comes first: the read finishing, or the read being held for the person's decision.
        await asyncio.wait({reading, asyncio.create_task(held.parked.wait())}, return_when=asyncio.FIRST_COMPLETED)
        order.append("read done" if reading.done() else f"read waiting in {modes.current}")
        release.set()
        results = await asyncio.gather(asking, reading)
        assert all(r.success for r in results)
        return order

    assert asyncio.run(scenario()) == ["read waiting in hitl", "decided"]


def test_plan_mode_offers_read_only_tools_and_switching_mode_is_announced(ctx: ToolContext) -> None:
    modes = ModeManager("plan")
    announced: list[Event] = []
    modes.listen(announced.append)
    toolset = make_toolset(ApproveEverything(), modes)
    names = {s.name for s in toolset.specs()}
    assert names == {
        "read_file",
        "list_directory",
        "glob_files",
        "grep_files",
        "repo_map",
        "todo_write",
        "web_fetch",
        "web_search",
    }
    refused = run(toolset, ctx, "write_file", path="src/a.py", content="x")
    assert "not available in plan mode" in refused.output and not (ctx.cwd / "src" / "a.py").exists()
    assert "denied by policy" in run(toolset, ctx, "read_file", path="secrets/key.txt").output
    modes.switch("work", reason="/work")
    assert "write_file" in {s.name for s in toolset.specs()}
    assert announced == [ModeChanged(previous="plan", current="work", reason="/work")]
    assert modes.switch("work") is None


def test_read_only_tools_from_the_rules_count_as_read_only_in_plan_mode() -> None:
    spec = ToolSpec(name="mcp__docs__search", description="", parameters={})
    assert not is_read_only(spec)
    assert is_read_only(spec, ["mcp__docs__*"])


def test_a_search_of_an_allowed_folder_leaves_out_files_the_read_rules_keep_back(ctx: ToolContext) -> None:
    toolset = make_toolset(None)
    grep = run(toolset, ctx, "grep_files", pattern="hunter2|TOKEN|app")
    assert "src/app.py:1:print('app')" in grep.output
    assert "hunter2" not in grep.output and "TOKEN" not in grep.output
    assert "3 result lines left out" in grep.output
    globbed = run(toolset, ctx, "glob_files", pattern="**/*.txt")
    assert "secrets/key.txt" not in globbed.output and "db.txt" not in globbed.output
    assert "result lines left out" in globbed.output
    clean = run(toolset, ctx, "grep_files", pattern="print", path="src")
    assert "left out" not in clean.output

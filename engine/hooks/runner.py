"""Running one hook: ``sh -c command`` inside the sandbox, the event as JSON on stdin, its answer read back.

The answer is the exit status plus optional JSON on stdout: exit 0 is ok (the JSON, if any, may carry
``decision``, ``reason``, ``context``, ``note``, ``continue``); exit 2 is a deny (or block) with stderr
as the reason; any other status, output that starts like JSON but is not, a command that cannot be
started or one that outlives its timeout is a failure. The child's environment is the one sandboxed
commands get (the documented list of :mod:`engine.sandbox.environment`, plus the user's ``sandbox.env``),
whatever the sandbox mode, and ``HIVE_HOOK_EVENT`` and ``HIVE_PROJECT_DIR``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from msgspec import Struct, structs

from engine.hooks.options import HookSpec
from engine.own_variables import inherited_environment
from engine.sandbox.base import Launch, Sandbox, SandboxError
from engine.sandbox.environment import sandbox_environment
from engine.tools.shell import KILL_GRACE, stop_process_group

Decision = Literal["allow", "deny", "ask"]
_DECISIONS: dict[str, Decision] = {"allow": "allow", "deny": "deny", "block": "deny", "ask": "ask"}
_MAX_OUTPUT = 64 * 1024


class HookOutcome(Struct, frozen=True, kw_only=True):
    """What one hook answered (or how it failed)."""

    hook: HookSpec
    failure: str | None = None
    """Why the hook counts as failed ("timed out after 5 s", "exited with status 1: ..."), None when it answered."""
    decision: Decision | None = None
    reason: str = ""
    context: str = ""
    note: str = ""
    go_on: bool = False
    """``"continue": true``: a stop hook asks the agent to go on."""
    undone: tuple[str, ...] = ()
    """What the sandbox undid after the hook (a change to a protected file), one line each, for the person."""

    @property
    def denies(self) -> bool:
        """Whether the hook said no (a failure is not a no; callers decide what a failure means)."""
        return self.failure is None and self.decision == "deny"

    def describe(self) -> str:
        """One line for the person and the model: which hook, and what went wrong or why it said no."""
        if self.failure is not None:
            return f"{self.hook.label} failed: {self.failure}"
        return f"{self.hook.label} said {self.decision}: {self.reason or 'no reason given'}"


class HookRunner:
    """Runs hooks in ``cwd`` through ``sandbox`` (the one shell commands use).

    ``passed``: the variables the user's ``sandbox.env`` names; ``network``: whether the hooks may use
    the network (the proxy variables pass only then).
    """

    def __init__(
        self,
        sandbox: Sandbox,
        cwd: Path,
        *,
        kill_grace: float = KILL_GRACE,
        passed: tuple[str, ...] = (),
        network: bool = False,
    ) -> None:
        self.sandbox = sandbox
        self.cwd = cwd
        self.kill_grace = kill_grace
        self.passed = passed
        self.network = network

    async def run(self, hook: HookSpec, payload: Mapping[str, Any]) -> HookOutcome:
        """Run ``hook`` with ``payload`` on its stdin; never raises for anything the hook does."""
        env = sandbox_environment(inherited_environment(), network=self.network, passed=self.passed)
        try:
            launch = await asyncio.to_thread(self.sandbox.prepare, hook.command, self.cwd, env)
        except SandboxError as exc:
            return HookOutcome(hook=hook, failure=f"not run: {exc}")
        own = {"HIVE_HOOK_EVENT": hook.event, "HIVE_PROJECT_DIR": str(self.cwd)}
        try:
            with_own = structs.replace(launch, env={**launch.env, **own})  # after the list: hive's own, for the hook
            outcome = await self._spawned(hook, with_own, json.dumps(payload).encode())
        except BaseException:
            launch.after()
            raise
        undone = launch.after()
        return structs.replace(outcome, undone=undone) if undone else outcome

    async def _spawned(self, hook: HookSpec, launch: Launch, stdin: bytes) -> HookOutcome:
        try:
            proc = await asyncio.create_subprocess_exec(
                *launch.argv,
                cwd=self.cwd,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                env=dict(launch.env),
                pass_fds=launch.pass_fds,
            )
        except OSError as exc:
            return HookOutcome(hook=hook, failure=f"cannot start: {exc.strerror or exc}")
        try:
            out, err = await asyncio.wait_for(proc.communicate(stdin), hook.timeout)
        except TimeoutError:
            await stop_process_group(proc, self.kill_grace)
            return HookOutcome(hook=hook, failure=f"timed out after {hook.timeout:g} s and was stopped")
        except BaseException:
            await stop_process_group(proc, self.kill_grace)
            raise
        assert proc.returncode is not None
        return answer(hook, proc.returncode, _text(out), _text(err))


def answer(hook: HookSpec, status: int, stdout: str, stderr: str) -> HookOutcome:
    """The outcome of a hook that exited with ``status`` after printing ``stdout`` and ``stderr``."""
    if status == 2:
        return HookOutcome(hook=hook, decision="deny", reason=stderr.strip() or stdout.strip())
    if status != 0:
        detail = stderr.strip() or stdout.strip() or "no output"
        return HookOutcome(hook=hook, failure=f"exited with status {status}: {detail}")
    if not stdout.lstrip().startswith("{"):
        return HookOutcome(hook=hook)
    try:
        data = json.loads(stdout)
    except json.JSONDecodeError as exc:
        return HookOutcome(hook=hook, failure=f"printed JSON that does not parse ({exc})")
    return _from_json(hook, data)


def _from_json(hook: HookSpec, data: dict[str, Any]) -> HookOutcome:
    decision = data.get("decision")
    if decision is not None and decision not in _DECISIONS:
        return HookOutcome(hook=hook, failure=f"unknown decision {decision!r} (allow, deny, block or ask)")
    return HookOutcome(
        hook=hook,
        decision=_DECISIONS[decision] if decision else None,
        reason=str(data.get("reason") or ""),
        context=str(data.get("context") or ""),
        note=str(data.get("note") or ""),
        go_on=data.get("continue") is True,
    )


def _text(data: bytes) -> str:
    return data[:_MAX_OUTPUT].decode(errors="replace")

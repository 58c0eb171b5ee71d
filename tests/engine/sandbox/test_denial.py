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
        ("chmod: changing permissions of 'x': Operation not permitted", ("filesystem",)),
        (
            'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
            '  File "/usr/lib/python3.11/socket.py", line 232, in __init__\n'
            "    _socket.socket.__init__(self, family, type, proto, fileno)\n"
            "PermissionError: [Errno 1] Operation not permitted",
            ("unix_socket",),
        ),
        ("dial unix /var/run/docker.sock: socket: operation not permitted", ("unix_socket",)),
        ("Error connecting to agent: Operation not permitted", ("unix_socket",)),
        (
            "Error: listen EPERM: operation not permitted /tmp/x.sock\ntouch: cannot touch '/etc/x': Permission denied",
            ("filesystem", "unix_socket"),
        ),
        (
            "socket: Operation not permitted\n" + "\n" * 7 + "chown: Operation not permitted",
            ("filesystem", "unix_socket"),
        ),
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
    assert denial_note(("unix_socket",), "read-only") == (
        "[The sandbox may have blocked this: it refuses unix sockets unless the user's own settings allow them with "
        "`sandbox.allow_unix_sockets` (socket paths, or `inside` for sockets made inside the sandbox).]"
    )

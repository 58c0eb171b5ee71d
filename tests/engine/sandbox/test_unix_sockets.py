"""The seccomp filter in the real sandbox: no unix sockets out, no io_uring, no terminal injection.

A "credential daemon" listens on a unix socket in the fake home (under /var/tmp, so the sandbox sees
the folder, as it sees a home folder): the filter, not the mount view, must keep commands from it.
Each probe is also run outside the sandbox first, to show it would succeed there.
"""

from __future__ import annotations

import asyncio
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.hooks.options import HookSpec
from engine.hooks.runner import HookRunner
from engine.sandbox.bubblewrap import BubblewrapSandbox
from engine.sandbox.options import SandboxOptions
from engine.sandbox.seccomp import seccomp_program
from engine.sandbox.status import check_sandbox
from tests.engine.sandbox.helpers import Runner, require_bwrap
from tests.support.unix_daemon import UnixDaemon

PASSWORD = "hunter2-from-the-credential-cache"
# Syscall numbers from the kernel's tables, written here apart from engine.sandbox.seccomp's own.
SOCKET_NR = {"x86_64": 41, "aarch64": 198}[platform.machine()]
IOCTL_NR = {"x86_64": 16, "aarch64": 29}[platform.machine()]
IO_URING_SETUP_NR = 425

RAW_SYSCALL = """
import ctypes, errno, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def raw(nr, *args):
    result = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    if result < 0:
        print("errno", errno.errorcode[ctypes.get_errno()])
        sys.exit(1)
    return result
"""
CONNECT = """
import socket, sys
client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
client.connect(sys.argv[1])
print(client.recv(200).decode())
"""
WIDE_DOMAIN = (
    RAW_SYSCALL
    + f"""
import socket
fd = raw({SOCKET_NR}, (1 << 32) | socket.AF_UNIX, socket.SOCK_STREAM, 0)  # the kernel reads an int: AF_UNIX
client = socket.socket(fileno=fd)
client.connect(sys.argv[1])
print(client.recv(200).decode())
"""
)
IO_URING = (
    RAW_SYSCALL
    + f"""
params = (ctypes.c_char * 120)()
print("io_uring fd", raw({IO_URING_SETUP_NR}, 4, ctypes.addressof(params)))
"""
)
STILL_WORKS = """
import multiprocessing, socket, threading
if __name__ == "__main__":
    left, right = socket.socketpair()
    left.sendall(b"pair")
    print(right.recv(10).decode())
    server = socket.create_server(("127.0.0.1", 0))
    def echo():
        connection, _ = server.accept()
        connection.sendall(connection.recv(10).upper())
    threading.Thread(target=echo).start()
    client = socket.create_connection(server.getsockname())
    client.sendall(b"tcp")
    print(client.recv(10).decode())
    multiprocessing.set_start_method("spawn")
    with multiprocessing.Pool(2) as pool:
        print("spawn", pool.map(abs, [-1, -2]))
"""
TERMINAL = (
    RAW_SYSCALL
    + f"""
import fcntl, os, pty, termios
def attempt(name, call):
    try:
        call()
        print(name, "done")
    except OSError as exc:
        print(name, errno.errorcode[exc.errno])
pid, master = pty.fork()
if pid == 0:  # a session whose controlling terminal is the pty: TIOCSTI is the kernel's to allow
    attempt("own terminal", lambda: fcntl.ioctl(0, termios.TIOCSTI, b"x"))
    os._exit(0)
output = b""
while True:
    try:
        chunk = os.read(master, 1024)
    except OSError:
        break
    if not chunk:
        break
    output += chunk
os.waitpid(pid, 0)
print(output.decode().strip().splitlines()[-1])
null = os.open("/dev/null", os.O_RDWR)
attempt("TIOCSTI", lambda: fcntl.ioctl(null, termios.TIOCSTI, b"x"))
attempt("TIOCLINUX", lambda: fcntl.ioctl(null, 0x541C, b"x"))
try:
    raw({IOCTL_NR}, null, (1 << 32) | termios.TIOCSTI, 0)
except SystemExit:
    pass
"""
)
FORKSERVER = """
import multiprocessing
if __name__ == "__main__":
    multiprocessing.set_start_method("forkserver")
    with multiprocessing.Pool(2) as pool:
        print("forkserver", pool.map(abs, [-1, -2]))
"""
TMP_SERVER = """
import socket
server = socket.socket(socket.AF_UNIX)
server.bind("/tmp/test-server.sock")
server.listen()
client = socket.socket(socket.AF_UNIX)
client.connect("/tmp/test-server.sock")
print("unix server in /tmp: ok")
"""


def password_daemon(path: Path) -> UnixDaemon:
    """A unix-socket server that answers every connection with a password, and counts them."""
    return UnixDaemon(path, f"password={PASSWORD}\n".encode())


@pytest.fixture
def daemon(home: Path) -> Iterator[UnixDaemon]:
    """git's credential cache, as it lives in a home folder."""
    served = password_daemon(home / ".cache" / "git" / "credential" / "socket")
    yield served
    served.close()


@pytest.fixture
def scripts(base: Path) -> Path:
    folder = base / "scripts"
    folder.mkdir()
    for name, code in {
        "connect": CONNECT,
        "wide_domain": WIDE_DOMAIN,
        "io_uring": IO_URING,
        "still_works": STILL_WORKS,
        "terminal": TERMINAL,
        "forkserver": FORKSERVER,
        "tmp_server": TMP_SERVER,
    }.items():
        (folder / f"{name}.py").write_text(code)
    return folder


def outside(script: Path, *args: str) -> str:
    """``script`` run as hive itself, with no sandbox."""
    done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=30)
    return done.stdout + done.stderr


def test_a_command_cannot_reach_the_credential_daemon(run: Runner, daemon: UnixDaemon, scripts: Path) -> None:
    assert PASSWORD in outside(scripts / "connect.py", str(daemon.path))
    reached = daemon.connections

    result = run(f"python3 {scripts / 'connect.py'} {daemon.path}")

    assert result.success is False
    assert "PermissionError: [Errno 1] Operation not permitted" in result.output
    assert PASSWORD not in result.output and daemon.connections == reached
    assert "sandbox.allow_unix_sockets" in result.output  # the hint says how to allow it


def test_a_64_bit_domain_does_not_slip_past_the_filter(run: Runner, daemon: UnixDaemon, scripts: Path) -> None:
    assert PASSWORD in outside(scripts / "wide_domain.py", str(daemon.path))
    reached = daemon.connections

    result = run(f"python3 {scripts / 'wide_domain.py'} {daemon.path}")

    assert "errno EPERM" in result.output and PASSWORD not in result.output
    assert daemon.connections == reached


def test_io_uring_cannot_be_set_up(run: Runner, scripts: Path) -> None:
    assert "io_uring fd" in outside(scripts / "io_uring.py")
    result = run(f"python3 {scripts / 'io_uring.py'}")
    assert result.success is False and "errno EPERM" in result.output, result.output


def test_socketpair_loopback_tcp_and_spawned_processes_still_work(run: Runner, scripts: Path) -> None:
    result = run(f"python3 {scripts / 'still_works.py'}")
    assert result.success is True, result.output
    assert result.output.splitlines()[-3:] == ["pair", "TCP", "spawn [1, 2]"]


def test_terminal_injection_is_refused(run: Runner, scripts: Path) -> None:
    unconfined = outside(scripts / "terminal.py").splitlines()
    assert "own terminal EPERM" not in unconfined and "TIOCSTI ENOTTY" in unconfined  # the kernel's own answers
    result = run(f"python3 {scripts / 'terminal.py'}")
    lines = result.output.splitlines()
    for refused in ("own terminal EPERM", "TIOCSTI EPERM", "TIOCLINUX EPERM", "errno EPERM"):
        assert refused in lines, result.output


def test_unix_sockets_made_inside_need_the_inside_setting(run: Runner, scripts: Path) -> None:
    refused = run(f"python3 {scripts / 'forkserver.py'}; python3 {scripts / 'tmp_server.py'}")
    assert refused.output.count("PermissionError") == 2 and "sandbox.allow_unix_sockets" in refused.output

    inside = run.with_options(SandboxOptions(unix_sockets_inside=True))
    allowed = inside(f"python3 {scripts / 'forkserver.py'} && python3 {scripts / 'tmp_server.py'}")

    assert allowed.success is True, allowed.output
    assert "forkserver [1, 2]" in allowed.output and "unix server in /tmp: ok" in allowed.output


@pytest.fixture
def private_sockets() -> Iterator[tuple[UnixDaemon, UnixDaemon]]:
    """Two daemons under the host's /tmp, which the sandbox replaces with a private one."""
    folder = Path(tempfile.mkdtemp(prefix="hive-sockets-", dir="/tmp"))
    served = (password_daemon(folder / "allowed.sock"), password_daemon(folder / "other.sock"))
    yield served
    for daemon in served:
        daemon.close()
    shutil.rmtree(folder, ignore_errors=True)


def test_an_allowed_socket_is_reachable_and_another_is_not_there(
    run: Runner, scripts: Path, private_sockets: tuple[UnixDaemon, UnixDaemon]
) -> None:
    allowed, other = private_sockets
    runner = run.with_options(SandboxOptions(unix_sockets=(allowed.path, allowed.path.parent / "missing.sock")))
    connect = f"python3 {scripts / 'connect.py'}"

    result = runner(f"{connect} {allowed.path}; {connect} {other.path}")

    assert PASSWORD in result.output and allowed.connections == 1
    assert "FileNotFoundError" in result.output and other.connections == 0
    assert runner.sandbox.describe().endswith(", unix sockets allowed")


def test_hooks_run_under_the_same_filter(project: Path) -> None:
    require_bwrap()
    hook = HookSpec(event="user_prompt", command="python3 -c 'import socket; socket.socket(socket.AF_UNIX)' || exit 2")
    runner = HookRunner(BubblewrapSandbox(SandboxOptions()), project, kill_grace=0.3)

    outcome = asyncio.run(runner.run(hook, {"event": "user_prompt"}))

    assert outcome.denies and "Operation not permitted" in outcome.reason, outcome


@pytest.fixture
def unknown_machine(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This machine as one hive has no syscall table for."""
    monkeypatch.setattr(platform, "machine", lambda: "riscv64")
    seccomp_program.cache_clear()
    yield
    monkeypatch.undo()
    seccomp_program.cache_clear()


@pytest.mark.usefixtures("unknown_machine")
def test_another_architecture_runs_commands_without_a_filter_and_says_so_once(run: Runner, scripts: Path) -> None:
    launch = run.sandbox.prepare("true", run.project, {})
    launch.after()
    assert "--seccomp" not in launch.argv and launch.pass_fds == ()
    result = run(f"python3 {scripts / 'io_uring.py'}")
    assert result.success is True and "io_uring fd" in result.output
    status = check_sandbox(SandboxOptions())
    assert status.confined and "no seccomp filter for this machine (riscv64" in str(status.notice())
    assert check_sandbox(SandboxOptions(mode="off")).notice() is None

"""The stdio transport: hive runs the server in its own process group and owns that group to the end.

Messages are newline-delimited JSON-RPC on the server's stdin and stdout; its stderr goes to a log
file.

A server runs outside the sandbox, so what it starts from must not be the repository's choice:

- where it works (:func:`launch_folder`): the entry's ``cwd``; else, for the person's own server,
  hive's neutral folder for servers (empty, private), never the project: ``python3 -m some_server``
  imports nothing from the repository, ``npx``/``uvx``/``pipx`` read no ``.npmrc``, ``pip.conf``,
  ``uv.toml``, ``package.json`` or ``node_modules/.bin`` of it. A project's own server works in the
  project root: it is the project's code, which its approval pins (:mod:`engine.launch_files`).
- what it inherits (:func:`server_environment`): only a few variables of hive's environment
  (``PATH``, ``HOME``, ...; never ``PYTHONPATH``, ``NODE_OPTIONS``, ``npm_config_*`` or another
  loader variable) plus its configured ``env``. ``PATH`` loses its relative entries and those where
  sandboxed commands can write. The person's own server also gets ``PYTHONSAFEPATH=1`` (unless its
  ``env`` sets it): Python puts neither the working folder nor a script's folder on the import path.
 To stop it: close its stdin and give it 2 s, then SIGTERM its whole process
group, 2 s more, then SIGKILL. What the server started and left behind in its group is stopped the
same way even when the server itself exited in time, so no process of it outlives hive.
"""

from __future__ import annotations

import errno
import os
import signal
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any, TextIO

import anyio

from engine.mcp.config import ServerConfig
from engine.mcp.errors import without_values
from engine.paths import project_root, user_data_dir
from engine.private_files import private_dir
from engine.programs import ProgramLookup, given_program, trusted_program

INHERITED = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR")
"""The variables of hive's environment every server gets; none of them decides what code a program loads."""
SERVERS_FOLDER = "mcp-servers"
"""hive's neutral working folder for the person's own servers, in its data folder."""
GRACE_S = 2.0
"""How long the server has to exit after its stdin closes, and again after SIGTERM."""
_POLL_S = 0.01


def neutral_folder() -> Path:
    """hive's working folder for the person's own servers: private, its own, outside every project."""
    return user_data_dir() / SERVERS_FOLDER


def launch_folder(server: ServerConfig) -> Path:
    """Where ``server`` runs: its ``cwd`` (a project's server: the project root), else :func:`neutral_folder`."""
    return server.cwd if server.cwd is not None else neutral_folder()


def server_environment(server: ServerConfig, unsafe_dirs: Sequence[Path] | None = None) -> dict[str, str]:
    """The few variables of hive's own environment a server gets, plus its configured ``env`` (see the module).

    ``unsafe_dirs``: see :func:`server_program`; the inherited ``PATH`` keeps none of its folders.
    """
    inherited = {name: os.environ[name] for name in INHERITED if name in os.environ}
    if "PATH" in inherited:
        inherited["PATH"] = safe_search_path(inherited["PATH"], _unsafe(server, unsafe_dirs))
    if not server.from_project:
        inherited["PYTHONSAFEPATH"] = "1"
    return inherited | dict(server.env)


def safe_search_path(search_path: str, unsafe_dirs: Sequence[Path]) -> str:
    """``search_path`` without its empty and relative entries and those inside ``unsafe_dirs``."""
    unsafe = [form for folder in unsafe_dirs for form in {os.path.abspath(folder), os.path.realpath(folder)}]
    kept = []
    for entry in search_path.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        forms = {os.path.abspath(entry), os.path.realpath(entry)}
        if not any(form == folder or form.startswith(os.path.join(folder, "")) for form in forms for folder in unsafe):
            kept.append(entry)
    return os.pathsep.join(kept)


def server_program(server: ServerConfig, unsafe_dirs: Sequence[Path] | None = None) -> ProgramLookup:
    """The program that starts ``server``, never one a sandboxed command could have planted in its place.

    A bare name is looked up on the server's ``PATH`` with :func:`engine.programs.trusted_program`, passing
    over ``unsafe_dirs`` (the folders sandboxed commands can write; None: the server's project). A path is
    the configuration's own choice of file and is used as given (from the server's :func:`launch_folder`),
    with a caution when it lies where a command could have changed it.
    """
    assert server.command is not None
    unsafe = _unsafe(server, unsafe_dirs)
    if "/" in server.command:
        return given_program(launch_folder(server) / server.command, unsafe_dirs=unsafe, name=server.command)
    # hive's own PATH, not the child's (which has lost those folders): what is passed over is said.
    search_path = server.env.get("PATH", os.environ.get("PATH", os.defpath))
    return trusted_program(server.command, unsafe_dirs=unsafe, search_path=search_path)


def _unsafe(server: ServerConfig, unsafe_dirs: Sequence[Path] | None) -> Sequence[Path]:
    if unsafe_dirs is not None:
        return unsafe_dirs
    return (project_root(server.project or launch_folder(server)),)


@asynccontextmanager
async def stdio_transport(
    server: ServerConfig,
    errlog: TextIO,
    on_exit: Callable[[], None] | None = None,
    unsafe_dirs: Sequence[Path] | None = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """Start ``server`` and yield the (read, write) message streams the SDK's client takes.

    ``on_exit`` is called when the server closes its stdout by itself (it exited or crashed);
    ``unsafe_dirs``: see :func:`server_program`.
    """
    from mcp.shared.message import SessionMessage

    program = server_program(server, unsafe_dirs)
    notice = program.notice()
    if notice:
        errlog.write(f"hive: {without_values(notice, server)}\n")
        errlog.flush()
    if program.path is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), server.command)
    folder = launch_folder(server)
    if server.cwd is None:
        private_dir(folder)
    process = await anyio.open_process(
        [program.path, *server.args],
        env=server_environment(server, unsafe_dirs),
        cwd=folder,
        stderr=errlog,
        start_new_session=True,
    )
    read_in, read_out = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_in, write_out = anyio.create_memory_object_stream[SessionMessage](0)
    stopping = False

    async def read() -> None:
        await _read(process, read_in)
        if not stopping and on_exit is not None:
            on_exit()

    async with anyio.create_task_group() as group:
        group.start_soon(read)
        group.start_soon(_write, process, write_out, read_in)
        try:
            yield read_out, write_in
        finally:
            stopping = True
            with anyio.CancelScope(shield=True):
                await stop_process(process)
                for stream in (read_out, write_in):
                    await stream.aclose()
            group.cancel_scope.cancel()


async def _read(process: Any, sink: Any) -> None:
    """Server stdout → messages; a line that is not a JSON-RPC message is passed on as the error it is."""
    import mcp_types
    from mcp.shared.message import SessionMessage

    buffer = b""
    with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
        async with sink:
            async for chunk in process.stdout:
                *lines, buffer = (buffer + chunk).split(b"\n")
                for line in lines:
                    if not line.strip():
                        continue
                    try:
                        message: Any = SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line))
                    except ValueError as exc:
                        message = exc
                    await sink.send(message)


async def _write(process: Any, source: Any, reader_sink: Any) -> None:
    """Messages → server stdin; when the pipe breaks, the read side is closed so waiting requests end."""
    try:
        async with source:
            async for message in source:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                await process.stdin.send(data.encode())
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        await reader_sink.aclose()


async def stop_process(process: Any) -> None:
    """Close stdin, wait, SIGTERM the group, wait, SIGKILL the group; then the same for what is left of it."""
    group = process.pid  # a new session: the server leads its own process group
    with suppress(OSError, anyio.ClosedResourceError, anyio.BrokenResourceError):
        await process.stdin.aclose()
    if not await _exited(process, GRACE_S):
        _signal(group, signal.SIGTERM)
        if not await _exited(process, GRACE_S):
            _signal(group, signal.SIGKILL)
            await _exited(process, GRACE_S)
    if _group_alive(group):
        _signal(group, signal.SIGTERM)
        if not await _group_gone(group, GRACE_S):
            _signal(group, signal.SIGKILL)
    with suppress(OSError, anyio.ClosedResourceError, anyio.BrokenResourceError):
        await process.stdout.aclose()
    with suppress(OSError, ProcessLookupError), anyio.move_on_after(GRACE_S):
        await process.aclose()


async def _exited(process: Any, seconds: float) -> bool:
    # Polling returncode, not wait(): wait() also waits for the pipes, which a child may hold open.
    return await _poll(lambda: process.returncode is not None, seconds)


async def _group_gone(group: int, seconds: float) -> bool:
    return await _poll(lambda: not _group_alive(group), seconds)


async def _poll(done: Callable[[], bool], seconds: float) -> bool:
    for _ in range(round(seconds / _POLL_S)):
        if done():
            return True
        await anyio.sleep(_POLL_S)
    return done()


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _signal(group: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(group, sig)

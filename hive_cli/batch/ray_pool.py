"""`hive batch --ray [ADDRESS]`: the batch's tasks as Ray tasks on a cluster, each running hive as installed there.

Ray is an optional extra (``pip install 'hive-agent[ray]'``) and is imported here only, when a batch goes to
Ray: ``hive --help`` and ``hive batch --help`` never load it. Each task is one Ray task (one CPU, never
retried: editing a working copy is not idempotent) that calls ``hive_cli.batch.worker.run_one`` on the worker,
in a folder of its own under the workspace root. Results come back as they finish and go to ``on_result`` in
this process, which writes the results file. Credentials reach the workers as Ray runtime environment
variables named by the caller, never as task arguments, so never in results or logs.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import logging
import os
import signal
import socket
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from engine.errors import UserError
from hive_cli.batch.stop_signals import StopSignals

INSTALL_HINT = "pip install 'hive-agent[ray]'"
_WAIT_S = 0.5
"""How long one ``ray.wait`` blocks, so that Ctrl-C and SIGTERM are seen between waits."""
_CANCEL_GRACE_S = 10.0
"""How long cancelled tasks get to stop their ``hive run`` before their workers are killed."""
_PROBE_S = 5.0
"""How long to wait for a HOST:PORT address to answer before saying no cluster is there (Ray itself waits minutes)."""

OnResult = Callable[[str], None]


class StopStarting(Exception):
    """Raised by ``on_result`` (the batch's budget is spent): no new task starts; running ones finish and report."""


def run_on_ray(
    address: str | None,
    tasks: list[tuple[str, str]],
    defaults_json: str,
    workspace_root: str,
    env_names: list[str],
    on_result: OnResult,
    workers: int | None,
) -> None:
    """Run ``tasks`` ([(task_id, task_json)]) on the Ray cluster at ``address`` and hand each result to ``on_result``.

    ``address`` is None or "auto" (a cluster already running on this machine), "HOST:PORT" (its GCS port) or
    "ray://HOST:PORT" (Ray Client). ``env_names`` name variables of this process's environment that the
    workers get (unset ones are left out). ``workers`` caps the tasks in flight; None: as many as the cluster
    has CPUs. A task whose worker dies is a failed result, not an error of the batch. Ctrl-C, SIGTERM and SIGHUP
    cancel the tasks in flight (their workers are killed if they do not stop within a grace) and disconnect;
    then KeyboardInterrupt (Ctrl-C) or SystemExit(128 + the signal's number) goes on to the caller.
    Raises ``UserError`` when Ray is not installed or no cluster answers at ``address``.
    """
    ray = _import_ray()
    previous_sigterm = signal.getsignal(signal.SIGTERM)
    _connect(ray, address or "auto", forwarded_env(env_names))
    stop = StopSignals()
    try:
        with stop.caught():
            _drain(ray, _Batch(deque(tasks), defaults_json, workspace_root, on_result, workers, stop))
    finally:
        ray.shutdown()
        signal.signal(signal.SIGTERM, previous_sigterm)  # ray.init leaves its own handler behind


def run_task(task_json: str, defaults_json: str, workspace: str) -> str:
    """The Ray task: run one batch task on the worker, in ``workspace`` (created there). Returns the result JSON."""
    from hive_cli.batch.worker import run_one

    Path(workspace).mkdir(mode=0o700, parents=True, exist_ok=True)
    return run_one(task_json, defaults_json, workspace)


def forwarded_env(env_names: list[str]) -> dict[str, str]:
    """The named variables of this process's environment that are set, for the workers' runtime environment."""
    return {name: os.environ[name] for name in env_names if name in os.environ}


def task_workspace(workspace_root: str, task_id: str) -> str:
    """The task's own folder under the workspace root; an id that would name another place is refused."""
    if not task_id or task_id in (".", "..") or "/" in task_id or "\\" in task_id or "\x00" in task_id:
        raise ValueError(f"task id {task_id!r} cannot name a folder")
    return str(Path(workspace_root) / task_id)


def require_ray() -> None:
    """Import Ray; ``UserError`` saying what to install when it cannot be imported."""
    _import_ray()


def _import_ray() -> ModuleType:
    try:
        return importlib.import_module("ray")  # typed as a module whether or not Ray's stubs are installed
    except ImportError:
        raise UserError(f"--ray needs Ray, which is not installed: {INSTALL_HINT}") from None


def _connect(ray: ModuleType, address: str, env_vars: dict[str, str]) -> None:
    reached = os.environ.get("RAY_ADDRESS") or address if address == "auto" else address  # Ray's rule for auto
    if reached.startswith("ray://"):
        _require_ray_client(reached)
    elif reached != "auto":
        _probe(reached)
    try:
        ray.init(
            address=address,
            runtime_env={"env_vars": env_vars},
            log_to_driver=False,
            logging_level=logging.ERROR,
            namespace="hive-batch",
        )
    except (ConnectionError, RuntimeError, ValueError) as error:
        raise UserError(_connect_failure(address, error)) from None


def _connect_failure(address: str, error: Exception) -> str:
    if address == "auto" and isinstance(error, ConnectionError):
        return "--ray auto: no Ray cluster is running on this machine (start one with `ray start --head`, or give --ray HOST:PORT)"
    first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
    return f"--ray {address}: could not connect to the Ray cluster: {first_line}"


def _require_ray_client(address: str) -> None:
    if importlib.util.find_spec("grpc") is None:  # Ray Client's transport, only in ray[client]
        raise UserError(f"--ray {address}: a ray:// address needs Ray Client: pip install 'ray[client]'")


def _probe(address: str) -> None:
    """Fail in seconds when nothing listens at HOST:PORT; ``ray.init`` would retry for minutes."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise UserError(f"--ray {address}: an address is auto, HOST:PORT or ray://HOST:PORT")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=_PROBE_S).close()
    except OSError as error:
        raise UserError(f"--ray {address}: no Ray cluster answers there ({error.strerror or error})") from None


@dataclass
class _Batch:
    queue: deque[tuple[str, str]]
    defaults_json: str
    workspace_root: str
    on_result: OnResult
    workers: int | None
    stop: StopSignals


def _drain(ray: ModuleType, batch: _Batch) -> None:
    remote = ray.remote(num_cpus=1, max_retries=0)(run_task)
    in_flight: dict[Any, str] = {}
    try:
        while batch.queue or in_flight:
            while batch.queue and len(in_flight) < _cap(ray, batch.workers):
                task_id, task_json = batch.queue.popleft()
                workspace = task_workspace(batch.workspace_root, task_id)
                ref = remote.options(name=f"hive-batch-{task_id}").remote(task_json, batch.defaults_json, workspace)
                in_flight[ref] = task_id
            if _collect(ray, in_flight, batch.on_result):
                batch.queue.clear()
            batch.stop.raise_if_received()
    except BaseException:
        _cancel(ray, list(in_flight))
        raise


def _cancel(ray: ModuleType, refs: list[Any]) -> None:
    """Interrupt the tasks (their ``hive run`` is stopped by the worker), then kill the workers of any left after a grace."""
    for ref in refs:
        ray.cancel(ref, force=False)
    _, left = ray.wait(refs, num_returns=len(refs), timeout=_CANCEL_GRACE_S) if refs else ([], [])
    for ref in left:
        ray.cancel(ref, force=True)


def _collect(ray: ModuleType, in_flight: dict[Any, str], on_result: OnResult) -> bool:
    """Hand on the results that are ready; True when ``on_result`` said to start nothing more."""
    stop = False
    ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=_WAIT_S)
    for ref in ready:
        try:
            on_result(_result_text(ray, ref, in_flight.pop(ref)))
        except StopStarting:
            stop = True
    return stop


def _result_text(ray: ModuleType, ref: Any, task_id: str) -> str:
    try:
        return str(ray.get(ref))
    except ray.exceptions.RayError as error:
        return failed_result(task_id, error)


def failed_result(task_id: str, error: BaseException) -> str:
    """The result line of a task Ray could not finish (its worker died, it was cancelled): failed, one line why."""
    first_line = (str(error).strip().splitlines() or [""])[0]
    return json.dumps({"id": task_id, "status": "failed", "error": f"ray: {type(error).__name__}: {first_line}"})


def _cap(ray: ModuleType, workers: int | None) -> int:
    """At most ``workers`` tasks in flight, or as many as the cluster has CPUs now (it may grow)."""
    if workers is not None:
        return max(1, workers)
    return max(1, int(ray.cluster_resources().get("CPU", 1)))

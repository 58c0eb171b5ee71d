"""`hive batch --ray`: the batch's tasks on a real local Ray cluster started for this module (two CPUs).

The driver is ``run_on_ray`` in this process; each task runs ``hive_cli.batch.worker.run_one`` on a Ray worker,
which runs the real ``hive run`` against the scripted model server. The API key is only in this process's
environment: it reaches the workers as a Ray runtime environment variable, by name.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.errors import UserError
from hive_cli.batch.ray_pool import run_on_ray
from tests.support.batch_tasks import ScriptedTask, TaskRouter, make_batch, write_tasks_file
from tests.support.cli import hive_env, json_lines, run_hive
from tests.support.llm_server import LLMServer
from tests.support.ray_cluster import RayHead, free_port, ray_head

SECRET_KEY = "sk-ray-forwarded-secret-0123456789"


@pytest.fixture(scope="module")
def head(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RayHead]:
    hive_home = tmp_path_factory.mktemp("ray_hive_home")
    with ray_head(num_cpus=2, worker_env={"HIVE_HOME": str(hive_home), "HIVE_LOCAL_SERVERS": ""}) as running:
        yield running


@pytest.fixture
def driver(head: RayHead, monkeypatch: pytest.MonkeyPatch) -> RayHead:
    """This process as the head's driver, with the API key in its environment only."""
    for name, value in head.driver_env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HIVE_API_KEY", SECRET_KEY)
    return head


def run_batch(
    address: str, tasks: list[ScriptedTask], server: LLMServer, workspace: Path, *, workers: int | None = 2
) -> dict[str, dict[str, Any]]:
    """Run ``tasks`` on Ray; the result lines by task id, checked to come one per task."""
    lines: list[str] = []
    defaults = {"model": "openai/test-model", "api_base": server.base_url, "yes": True}
    run_on_ray(
        address,
        [(task.id, json.dumps(task.line())) for task in tasks],
        json.dumps(defaults),
        str(workspace),
        ["HIVE_API_KEY", "HIVE_NOT_SET_ANYWHERE"],
        lines.append,
        workers,
    )
    results = {result["id"]: result for result in map(json.loads, lines)}
    assert len(results) == len(lines) == len(tasks)
    return results


def test_a_batch_on_ray_gives_each_task_its_result_in_its_own_copy(
    driver: RayHead, llm_server: LLMServer, tmp_path: Path
) -> None:
    tasks = make_batch(tmp_path, count=8, missing=["t5"])
    router = TaskRouter(tasks).script(llm_server)
    results = run_batch(driver.address, tasks, llm_server, tmp_path / "work")

    for task in tasks:
        result = results[task.id]
        if task.id == "t5":
            assert result["status"] == "failed" and result["error"]
            assert router.requests[task.id] == 0
            continue
        assert (result["status"], result["exit_reason"], result["answer"]) == ("succeeded", "completed", task.answer)
        assert result["usage"]["prompt_tokens"] == 200 and result["session_id"]
        assert router.requests[task.id] == 2  # run once, not retried
        task.assert_done(tmp_path / "work" / task.id / "copy")
    # the key reached every hive on the workers, by the environment only
    assert {r.headers.get("authorization") for r in llm_server.chat_requests} == {f"Bearer {SECRET_KEY}"}
    assert all(SECRET_KEY not in json.dumps(r) for r in results.values())
    assert all(SECRET_KEY.encode() not in r.body for r in llm_server.chat_requests)


def test_a_worker_that_dies_is_a_failed_result_and_the_next_task_still_runs(
    driver: RayHead, llm_server: LLMServer, tmp_path: Path
) -> None:
    tasks = make_batch(tmp_path, count=2, repos=2)
    router = TaskRouter(tasks).script(llm_server)
    held = router.hold("t1")
    seen: dict[str, bool] = {}
    killer = threading.Thread(target=_kill_when_arrived, args=(driver, router, held, seen))
    killer.start()
    results = run_batch(driver.address, tasks, llm_server, tmp_path / "work", workers=1)
    killer.join()

    # one task at a time (workers=1, on two CPUs): while t1 was asking the model, t2 had not started
    assert seen == {"t2 running while t1 asks the model": False}

    assert results["t1"]["status"] == "failed" and "WorkerCrashedError" in results["t1"]["error"]
    assert results["t2"]["status"] == "succeeded"
    tasks[1].assert_done(tmp_path / "work" / "t2" / "copy")
    assert router.events.index(("request", "t2")) > router.events.index(("released", "t1"))
    assert router.requests["t1"] == 1  # never retried


def _kill_when_arrived(head: RayHead, router: TaskRouter, held: Any, seen: dict[str, bool]) -> None:
    held.wait_arrived()
    seen["t2 running while t1 asks the model"] = head.task_worker("hive-batch-t2") is not None
    head.kill_task_worker("hive-batch-t1")
    router.release("t1")


DRIVER = """
import json, sys
from hive_cli.batch.ray_pool import run_on_ray
address, tasks, defaults, workspace = json.loads(sys.argv[1])
run_on_ray(address, [tuple(t) for t in tasks], defaults, workspace, ["HIVE_API_KEY"], print, 1)
"""


def test_sigterm_to_the_driver_stops_the_running_task_and_its_hive(
    driver: RayHead, llm_server: LLMServer, tmp_path: Path
) -> None:
    tasks = make_batch(tmp_path, count=1)
    router = TaskRouter(tasks).script(llm_server)
    held = router.hold("t1")
    defaults = json.dumps({"model": "openai/test-model", "api_base": llm_server.base_url, "yes": True})
    argv = json.dumps([driver.address, [(t.id, json.dumps(t.line())) for t in tasks], defaults, str(tmp_path / "w")])
    env = hive_env(**driver.driver_env(), HIVE_API_KEY=SECRET_KEY)
    with subprocess.Popen(
        [sys.executable, "-c", DRIVER, argv], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as batch:
        held.wait_arrived()
        worker = driver.task_worker("hive-batch-t1")
        assert worker is not None
        hive = driver.children_of(worker)
        assert len(hive) == 1  # the task's `hive run`, asking the model now
        batch.send_signal(signal.SIGTERM)
        assert batch.wait(timeout=60) == 143, batch.stderr.read() if batch.stderr else ""
        assert batch.stdout is not None and batch.stdout.read() == ""  # no result for a task that never finished
    router.release("t1")
    assert driver.gone(hive[0]) and driver.task_worker("hive-batch-t1") is None
    assert not (tmp_path / "w" / "t1" / "copy" / tasks[0].file_name).exists()


@pytest.mark.parametrize("given", ["HOST:PORT", "auto with RAY_ADDRESS"])
def test_no_cluster_at_the_address_is_one_clear_error(
    given: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    address = f"127.0.0.1:{free_port()}"
    if given != "HOST:PORT":
        monkeypatch.setenv("RAY_ADDRESS", address)  # what auto attaches to, by Ray's rule
    with pytest.raises(UserError, match=f"^--ray {address}: no Ray cluster answers there"):
        run_on_ray(address if given == "HOST:PORT" else "auto", [], "{}", str(tmp_path), [], print, None)


def test_the_ray_backend_module_does_not_import_ray_until_a_batch_runs() -> None:
    probe = "import sys, hive_cli.batch.ray_pool; print('ray' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_hive_batch_on_ray_gives_the_results_the_local_pool_gives(
    driver: RayHead, llm_server: LLMServer, tmp_path: Path
) -> None:
    tasks = make_batch(tmp_path, count=8)
    router = TaskRouter(tasks).script(llm_server, runs=2)
    args = ["--workers", "2", "--model", "openai/test-model", "--api-base", llm_server.base_url, "--yes"]
    env = {**driver.driver_env(), "HIVE_API_KEY": SECRET_KEY}
    lines = {}
    for where, extra in (("local", []), ("ray", ["--ray", driver.address])):
        tasks_file = write_tasks_file(tmp_path / f"{where}.jsonl", tasks)
        done = run_hive("batch", str(tasks_file), *args, *extra, timeout=300, **env)
        assert done.returncode == 0, done.stderr
        lines[where] = {r["id"]: r for r in json_lines((tmp_path / f"{where}.results.jsonl").read_text())}
        for task in tasks:
            task.assert_done(tmp_path / f"{where}.work" / task.id / "copy")
    same = ("status", "exit_code", "exit_reason", "answer", "changed_files", "usage")
    assert {i: {k: r[k] for k in same} for i, r in lines["ray"].items()} == {
        i: {k: r[k] for k in same} for i, r in lines["local"].items()
    }
    assert router.requests == {t.id: 4 for t in tasks}  # twice per batch, never retried

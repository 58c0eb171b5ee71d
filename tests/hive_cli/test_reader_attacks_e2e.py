"""What hive reads on its own, and what read_file reads, in a repository built to abuse it: a real ``hive``.

The repository's ``AGENTS.md`` is a link to ``/proc/self/environ`` (hive's environment holds a
canary), its ``CLAUDE.md`` a link into the home's shell history, a FIFO, a sparse file of 2 GB; the
scripted model asks read_file for a sparse gigabyte and for a FIFO, and searches under a FIFO
``.gitignore``. No canary reaches the model server, hive finishes every time, and its peak memory
(the child's maximum resident size, measured by a small parent process around it) stays bounded.
A FIFO that blocked hive would hang: the subprocess timeout is only a failure guard.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.hive_cli.trust.world import USER_KEY, World, world
from tests.support.cli import hive_env
from tests.support.llm_server import LLMServer, call, text, tool_calls

ENV_CANARY = "reader-env-canary-7777888899990000"
HISTORY_CANARY = "reader-history-canary-1212343456567878"
GB = 1024**3
__all__ = ["world"]  # the fixture

MEMORY_BOUND_KB = 400 * 1024
"""Peak resident memory of the hive process (KiB); reading a sparse 1-2 GB file whole needs several times this."""

_MEASURE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[2:])\n"
    "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
    "sys.exit(done.returncode)\n"
)


def _run(world: World, server: LLMServer, cwd: Path | None = None) -> tuple[subprocess.CompletedProcess[str], int]:
    """``hive run -o json`` in the project, with the canary in hive's environment; the result and hive's peak RSS (KiB)."""
    flags = ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", USER_KEY]
    args = [sys.executable, "-m", "hive_cli", "run", "follow the README", *flags, "-o", "json"]
    args += ["-C", str(cwd or world.project)]
    rss_file = world.outside / "max_rss"
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(rss_file), *args],
        env=hive_env(HOME=str(world.home), READER_CANARY=ENV_CANARY),
        capture_output=True,
        text=True,
        timeout=120,  # a failure guard for a hang, not a measure
        check=False,
    )
    return done, int(rss_file.read_text())


def _sent(server: LLMServer) -> str:
    return "\n".join(request.body.decode("utf-8", "replace") for request in server.requests)


def _report(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_an_agents_md_linked_to_proc_self_environ_never_reaches_the_model(llm_server: LLMServer, world: World) -> None:
    (world.project / "AGENTS.md").symlink_to("/proc/self/environ")
    llm_server.script(text("done"))

    done, _ = _run(world, llm_server)

    report = _report(done)
    assert ENV_CANARY not in _sent(llm_server)
    assert any("did not read the instruction file" in n and "AGENTS.md" in n for n in report["notices"])


def test_a_claude_md_linked_into_the_home_never_reaches_the_model(llm_server: LLMServer, world: World) -> None:
    (world.home / ".bash_history").write_text(f"export TOKEN={HISTORY_CANARY}\n")
    (world.project / "CLAUDE.md").symlink_to("../home/.bash_history")
    (world.project / "src" / "AGENTS.md").symlink_to("../../home/.bash_history")
    llm_server.script(text("done"))

    done, _ = _run(world, llm_server, cwd=world.project / "src")

    report = _report(done)
    assert HISTORY_CANARY not in _sent(llm_server)
    refused = [n for n in report["notices"] if "did not read the instruction file" in n]
    assert len(refused) == 2 and all("outside" in n for n in refused)


def test_a_fifo_agents_md_does_not_stop_hive(llm_server: LLMServer, world: World) -> None:
    os.mkfifo(world.project / "AGENTS.md")
    llm_server.script(text("finished"))

    done, _ = _run(world, llm_server)

    report = _report(done)
    assert report["text"] == "finished"
    assert any("is a FIFO, not a regular file" in n for n in report["notices"])


def test_a_sparse_agents_md_of_2_gb_is_read_only_up_to_the_cap(llm_server: LLMServer, world: World) -> None:
    with (world.project / "AGENTS.md").open("wb") as file:
        file.write(b"Project rule: answer in French.\n")
        file.truncate(2 * GB)
    llm_server.script(text("done"))

    done, max_rss = _run(world, llm_server)

    _report(done)
    system = _sent(llm_server)
    assert "Project rule: answer in French." in system and "AGENTS.md truncated" in system
    assert max_rss < MEMORY_BOUND_KB


def test_read_file_of_a_sparse_gigabyte_and_of_a_fifo(llm_server: LLMServer, world: World) -> None:
    with (world.project / "big.log").open("wb") as file:
        file.write("".join(f"entry {n}\n" for n in range(1, 2001)).encode())
        file.truncate(GB)
    os.mkfifo(world.project / "pipe")
    llm_server.script(
        tool_calls(call("read_file", {"path": "big.log", "limit": 5}), call("read_file", {"path": "pipe"})),
        text("done"),
    )

    done, max_rss = _run(world, llm_server)

    outcomes = _report(done)["tool_calls"]
    assert outcomes[0]["success"] is True
    assert outcomes[0]["output"].splitlines()[-1] == "(lines 1-5; more follow: use offset=6 to read more)"
    assert (outcomes[1]["success"], outcomes[1]["output"]) == (
        False,
        "pipe was not read: it is a FIFO, not a regular file.",
    )
    assert max_rss < MEMORY_BOUND_KB


def test_search_tools_answer_under_a_fifo_gitignore(llm_server: LLMServer, world: World) -> None:
    os.mkfifo(world.project / ".gitignore")
    (world.project / "src" / "lib.py").write_text("needle = 'found'\n")
    llm_server.script(
        tool_calls(call("grep_files", {"pattern": "needle"}), call("glob_files", {"pattern": "*.py"})),
        text("done"),
    )

    done, _ = _run(world, llm_server)

    grep, glob = _report(done)["tool_calls"]
    assert grep["output"].splitlines()[0] == "src/lib.py:1:needle = 'found'"
    assert set(glob["output"].splitlines()[:2]) == {"src/app.py", "src/lib.py"}

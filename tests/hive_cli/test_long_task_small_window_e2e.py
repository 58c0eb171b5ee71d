"""A long task in a small window: dozens of tool rounds reading files, and every request still fits.

The scripted model reads one 4 KB file per round, forty rounds, then answers; it writes a ledger
whenever hive asks for one. With the window known (a setting), hive masks old results and compacts
ahead of time; with the window unknown, the server refuses a request over its window once, and hive
learns the window from the error and keeps within it from then on. Either way: every request that
is answered fits, the goal is in every request, the latest rounds go whole, and far less is sent than
the whole history would be.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.context.tokens import counter_for
from tests.support.cli import json_lines, run_hive
from tests.support.llm_server import LLMServer, Reply, call, context_overflow, text, tool_calls
from tests.support.trust import trust

GOAL = "Read each of the forty modules under src/ in turn and tell me which one defines parse_config."
ROUNDS = 40
WINDOW = 16_000
MODEL = "openai/test-model"


def write_modules(root: Path) -> list[str]:
    (root / "src").mkdir()
    names = []
    for i in range(ROUNDS):
        name = f"src/module_{i:02}.py"
        lines = [
            f"def helper_{i}_{n}(value):\n    return value * {n} + {i}  # step {n} of module {i}\n" for n in range(48)
        ]
        (root / name).write_text("".join(lines))
        names.append(name)
    return names


def is_summariser(request: dict[str, Any]) -> bool:
    return "task ledger" in str(request["messages"][0]["content"])


def request_tokens(request: dict[str, Any]) -> int:
    return counter_for(MODEL).request(request["messages"], request.get("tools") or ())


class ScriptedModel:
    """Reads the next module each round (the one after the latest result it was sent), then answers."""

    def __init__(self, names: list[str], refuse_over: int | None = None) -> None:
        self.names = names
        self.refuse_over = refuse_over
        self.refusals = 0

    def __call__(self, request: dict[str, Any]) -> Reply:
        if self.refuse_over is not None and request_tokens(request) > self.refuse_over:
            self.refusals += 1
            return context_overflow(limit=self.refuse_over, used=request_tokens(request))
        if is_summariser(request):
            return text("Files touched:\n- src/module_*.py read in order\nState of the work: reading on.")
        done = max((int(m["tool_call_id"][1:]) for m in request["messages"] if m["role"] == "tool"), default=-1)
        if done + 1 == ROUNDS:
            return text("module_17 defines parse_config.")
        step = done + 1
        return tool_calls(call("read_file", {"path": self.names[step]}, id=f"r{step}"))


def run_task(server: LLMServer, root: Path, model: ScriptedModel) -> list[dict[str, Any]]:
    server.script(*[model] * (3 * ROUNDS))
    args = ["--model", MODEL, "--api-base", server.base_url, "-C", str(root), "--max-turns", "100"]
    done = run_hive("run", GOAL, "--yes", "-o", "stream-json", *args, timeout=240)
    assert done.returncode == 0, done.stderr
    assert json_lines(done.stdout)[-1]["text"] == "module_17 defines parse_config."
    return json_lines(done.stdout)


def check_requests(server: LLMServer, root: Path, names: list[str], window: int) -> float:
    """Every answered agent request fits, holds the goal and the latest round whole; the share of a full history."""
    answered = [r.json for r in server.chat_requests if not is_summariser(r.json)]
    answered = [r for r in answered if request_tokens(r) <= window]
    assert len(answered) >= ROUNDS + 1
    full_history_chars = 0
    sent_chars = 0
    for request in answered:
        messages = request["messages"]
        assert request_tokens(request) <= window
        assert GOAL in json.dumps(messages)
        results = [m for m in messages if m["role"] == "tool"]
        if results:
            latest = int(results[-1]["tool_call_id"][1:])
            assert results[-1]["content"].startswith("     1\t") or "def helper_" in results[-1]["content"]
            assert f"return value * 47 + {latest}" in results[-1]["content"]  # whole: the last line is there
            full_history_chars += sum(len((root / names[i]).read_text()) for i in range(latest + 1))
        sent_chars += len(json.dumps(messages))
    return sent_chars / full_history_chars


def test_a_known_small_window_is_kept_by_masking_and_compacting_ahead_of_time(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    names = write_modules(tmp_path)
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "settings.yaml").write_text(f"context:\n  context_window: {WINDOW}\n")
    trust(tmp_path)
    events = run_task(llm_server, tmp_path, ScriptedModel(names))

    compactions = [e for e in events if e["type"] == "context_compacted"]
    assert compactions and {c["reason"] for c in compactions} == {"threshold"}
    ratio = check_requests(llm_server, tmp_path, names, int(WINDOW * 0.92))
    assert ratio < 0.45, f"sent {ratio:.2f} of the full history"


def test_an_unknown_window_is_learned_from_the_first_overflow_and_kept_from_then_on(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    names = write_modules(tmp_path)
    model = ScriptedModel(names, refuse_over=WINDOW)
    events = run_task(llm_server, tmp_path, model)

    reasons = [e["reason"] for e in events if e["type"] == "context_compacted"]
    assert reasons[0] == "overflow" and set(reasons[1:]) <= {"threshold"}
    assert model.refusals == 1  # learned once; later requests were compacted before they could overflow
    assert check_requests(llm_server, tmp_path, names, WINDOW) < 0.45


def test_a_guessed_window_waits_for_the_overflow_by_default_and_is_compacted_at_with_at_guess(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    names = write_modules(tmp_path)
    settings = tmp_path / ".ironhive" / "settings.yaml"
    settings.parent.mkdir()
    settings.write_text(f"context:\n  guessed_window: {WINDOW}\n")
    trust(tmp_path)
    deferred = ScriptedModel(names, refuse_over=WINDOW)
    reasons = [e["reason"] for e in run_task(llm_server, tmp_path, deferred) if e["type"] == "context_compacted"]
    assert deferred.refusals == 1 and reasons[0] == "overflow"  # the guess alone never compacts

    settings.write_text(f"context:\n  guessed_window: {WINDOW}\n  unknown_window_compaction: at_guess\n")
    trust(tmp_path)
    ahead = ScriptedModel(names, refuse_over=WINDOW)
    first_request = len(llm_server.chat_requests)
    reasons = [e["reason"] for e in run_task(llm_server, tmp_path, ahead) if e["type"] == "context_compacted"]
    assert ahead.refusals == 0 and reasons and set(reasons) == {"threshold"}
    answered = [r.json for r in llm_server.chat_requests[first_request:] if not is_summariser(r.json)]
    assert max(request_tokens(r) for r in answered) <= WINDOW * 0.92

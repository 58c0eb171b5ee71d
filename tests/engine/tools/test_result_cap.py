"""Very large tool results are cut on entry to head and tail, with the whole text saved for read_file."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from engine.config.loader import Overrides, load_config
from engine.events import ToolCall
from engine.session_open import open_session
from engine.tools.base import ToolContext
from engine.tools.files import ReadFileTool
from engine.tools.registry import ToolRegistry
from engine.tools.result_cap import ResultCap, result_limit
from tests.support.agents import collect
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.trust import trust


def big_file(root: Path) -> Path:
    path = root / "big.log"
    path.write_text("".join(f"entry {n}: {'x' * 60}\n" for n in range(1500)))
    return path


def test_a_result_over_the_limit_keeps_head_and_tail_and_says_where_the_whole_is(tmp_path: Path) -> None:
    big_file(tmp_path)
    capped = ResultCap(ToolRegistry([ReadFileTool()]), lambda: 5_000)
    ctx = ToolContext(cwd=tmp_path, data_dir=tmp_path / ".hive")
    result = asyncio.run(capped.call(ToolCall(id="c1", name="read_file", arguments={"path": "big.log"}), ctx))

    assert len(result.output) < 6_000 and result.success
    assert "entry 0:" in result.output and "entry 1499:" in result.output and "entry 700:" not in result.output
    saved = re.search(r"saved in (\S+);", result.output)
    assert saved is not None and saved.group(1).startswith(".hive/outputs/read_file-")
    assert "entry 700:" in (tmp_path / saved.group(1)).read_text()


def test_a_result_within_the_limit_is_passed_on_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "small.txt").write_text("hello\n")
    registry = ToolRegistry([ReadFileTool()])
    ctx = ToolContext(cwd=tmp_path, data_dir=tmp_path / ".hive")
    read = ToolCall(id="c1", name="read_file", arguments={"path": "small.txt"})
    assert asyncio.run(ResultCap(registry, lambda: 5_000).call(read, ctx)) == asyncio.run(registry.call(read, ctx))
    assert not (tmp_path / ".hive").exists()


def test_the_limit_is_a_quarter_of_the_window_at_most_the_setting() -> None:
    assert result_limit(16_000, 100_000) == 16_000
    assert result_limit(1_000_000, 100_000) == 100_000


def test_a_session_cuts_results_to_its_models_window(llm_server: LLMServer, tmp_path: Path) -> None:
    big_file(tmp_path)
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "settings.yaml").write_text("context:\n  context_window: 8000\n")
    trust(tmp_path)
    llm_server.script(tool_calls(call("read_file", {"path": "big.log"}, id="r")), text("Read."))
    overrides = Overrides(model="openai/test-model", api_base=llm_server.base_url, api_key="sk-test")
    session = asyncio.run(open_session(load_config(tmp_path, overrides), approver=None, title="t"))
    asyncio.run(collect(session.run_streaming("read big.log")))
    asyncio.run(session.close())

    sent = llm_server.chat_requests[1].messages[-1]
    assert sent["role"] == "tool" and len(sent["content"]) < 8_000 + 500
    assert "entry 0:" in sent["content"] and "read it with read_file" in sent["content"]

"""A long output is saved as head and tail within ``stores.output_file_max_bytes``; the file and the result say so."""

from __future__ import annotations

import re
from collections.abc import Callable

from msgspec.structs import replace

from engine.tools.base import FileToolOptions, ToolContext, ToolResult
from engine.tools.shell import ExecuteCommandTool

Call = Callable[..., ToolResult]
CAP = 100_000


def test_a_command_printing_more_than_the_cap_leaves_its_head_and_tail_within_it(call: Call, ctx: ToolContext) -> None:
    capped = replace(ctx, file_options=FileToolOptions(saved_output_max_bytes=CAP))
    result = call(ExecuteCommandTool(), context=capped, command="seq 1 200000")
    full = "".join(f"{n}\n" for n in range(1, 200001)).encode()
    saved = next((ctx.data_dir / "outputs").glob("command-*.log")).read_bytes()

    head, tail = CAP // 2, CAP - CAP // 2
    left_out = len(full) - CAP
    assert saved.startswith(full[:head]) and saved.endswith(full[-tail:])
    note = f"[hive: {left_out} bytes of output were left out here; this file keeps the first {head} and the last {tail} bytes of {len(full)}]"
    assert saved == full[:head] + f"\n\n{note}\n\n".encode() + full[-tail:]
    assert len(saved) <= CAP + 200
    said = re.search(r"the first (\d+) and the last (\d+) bytes of the output \((\d+) bytes between", result.output)
    assert said is not None and said.groups() == (str(head), str(tail), str(left_out))


def test_an_output_within_the_cap_is_saved_whole(call: Call, ctx: ToolContext) -> None:
    capped = replace(ctx, file_options=FileToolOptions(saved_output_max_bytes=CAP))
    result = call(ExecuteCommandTool(), context=capped, command="seq 1 15000")  # 73 KB: past the budget, within the cap
    full = "".join(f"{n}\n" for n in range(1, 15001)).encode()
    assert next((ctx.data_dir / "outputs").glob("command-*.log")).read_bytes() == full
    assert "the full output is saved in" in result.output

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine.tools.output import CommandOutput, describe_exit

DATA = b"".join(b"line %d\n" % n for n in range(10_000))


def _collect(spill_dir: Path, chunks: list[bytes], budget: int = 1000) -> CommandOutput:
    async def feed() -> CommandOutput:
        output = CommandOutput(spill_dir, budget)
        for chunk in chunks:
            await output.add(chunk)
        await output.close()
        return output

    return asyncio.run(feed())


@pytest.mark.parametrize("chunk_size", [len(DATA), 4096, 97])
def test_large_output_keeps_head_and_tail_whatever_the_chunk_sizes(tmp_path: Path, chunk_size: int) -> None:
    chunks = [DATA[i : i + chunk_size] for i in range(0, len(DATA), chunk_size)]
    output = _collect(tmp_path / "out", chunks)
    text = output.render()
    assert text.startswith("line 0\nline 1\n")
    assert "line 9999\n[Output was" in text
    assert " bytes omitted ..." in text
    assert output.spill_path is not None and output.spill_path.read_bytes() == DATA


def test_small_output_is_shown_whole_and_not_saved(tmp_path: Path) -> None:
    output = _collect(tmp_path / "out", [b"a\n", b"b\n"])
    assert (output.render(), output.spill_path) == ("a\nb\n", None)
    assert not (tmp_path / "out").exists()


def test_an_unwritable_output_directory_is_reported_in_the_text(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    output = _collect(tmp_path / "file" / "out", [DATA])
    assert "the full output could not be saved" in output.render()


def test_exit_codes_above_128_name_the_signal() -> None:
    assert describe_exit(137) == "Exit code: 137 (the command was killed by SIGKILL)"
    assert describe_exit(1) == "Exit code: 1"

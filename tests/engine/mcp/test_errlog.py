"""A server's log holds what it printed on stderr, with its own secrets and hive's replaced by their markers."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import anyio
import pytest

from engine.mcp.config import ServerConfig, WrittenEntry
from engine.mcp.errlog import LONG_LINE, server_log
from tests.support.small_disk import fill

TOKEN = "tok-" + "9f8e7d6c" * 3


def server(**env: str) -> ServerConfig:
    return ServerConfig(
        name="leaky",
        transport="stdio",
        source=Path("plugins.yaml"),
        command=sys.executable,
        env=env,
        written=WrittenEntry(command=sys.executable, env=dict.fromkeys(env, "${SOME_TOKEN}")),
    )


def run_printing(log: Path, config: ServerConfig, program: str) -> str | None:
    """Run ``program`` with ``config``'s log as its stderr, as the stdio transport does; the log's problem."""

    async def main() -> str | None:
        async with server_log(log, config) as server_log_:
            errlog = server_log_.writer
            errlog.write("--- hive connecting to leaky\n")
            errlog.flush()
            await anyio.run_process([sys.executable, "-c", program], stderr=errlog, env={**os.environ, **config.env})
        return server_log_.problem

    return anyio.run(main)


def test_a_server_printing_its_token_leaves_the_marker_in_its_log(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "leaky.log"
    log.parent.mkdir(mode=0o700)
    program = "import os, sys; sys.stderr.write('debug: token=' + os.environ['TOKEN'] + '\\n'); sys.stderr.write('bye')"

    run_printing(log, server(TOKEN=TOKEN), program)

    text = log.read_text()
    assert text == "--- hive connecting to leaky\ndebug: token=[redacted: mcp:leaky:TOKEN]\nbye"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_a_token_across_the_cut_of_a_long_line_is_still_found(tmp_path: Path) -> None:
    log = tmp_path / "leaky.log"
    filler = LONG_LINE - 5  # the token straddles the point where a line with no end is first written out
    program = (
        "import os, sys\n"
        f"for _ in range(3): sys.stderr.write('x' * {filler} + os.environ['TOKEN']); sys.stderr.flush()\n"
    )

    run_printing(log, server(TOKEN=TOKEN), program)

    text = log.read_text()
    assert TOKEN not in text and text.count("[redacted: mcp:leaky:TOKEN]") == 3
    assert len(text) == 3 * (filler + len("[redacted: mcp:leaky:TOKEN]")) + len("--- hive connecting to leaky\n")


def test_hives_own_secret_variables_are_replaced_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-" + "Zz9Yy8Xx" * 3)
    log = tmp_path / "leaky.log"
    program = "import sys; sys.stderr.write(sys.argv[0] + ' sk-proj-' + 'Zz9Yy8Xx' * 3 + '\\n')"

    run_printing(log, server(), program)

    assert log.read_text().endswith("-c [redacted: $OPENAI_API_KEY]\n")


def test_a_full_disk_drops_what_the_server_prints_but_never_stalls_it(small_disk: Path) -> None:
    log = small_disk / "leaky.log"
    log.write_text("earlier\n")
    fill(small_disk)
    program = "import sys\nfor _ in range(64): sys.stderr.write('y' * 32768 + '\\n'); sys.stderr.flush()\nprint('done')"

    problem = run_printing(log, server(), program)  # 2 MiB through a 64 KiB pipe: a stalled drain would hang here

    assert problem == (
        f"no space left on device writing leaky.log in {small_disk}; "
        "the log up to here is kept; what the server prints now is dropped"
    )
    assert log.read_text().startswith("earlier\n")

"""``@path`` mentions: the named file's content is attached to the message, if the read rules let it be read.

An attachment is a read like any other: a file the rules deny is not attached, one they ask about is
asked, and a name that is not a readable text file is reported instead of dropped without a word.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path

MENTION = re.compile(r"""(?<!\S)@(?:"([^"]+)"|'([^']+)'|([^\s"']\S*))""")
"""``@name``, or ``@"a name with spaces"`` (or single quotes) for a name the shell would split."""
MAX_ATTACHED_BYTES = 100_000

Gatekeeper = Callable[[str], Awaitable[str | None]]
"""Given a mentioned path, why it may not be attached (None: it may)."""
ResourceReader = Callable[[str], Awaitable[str] | None]
"""Given a mention, None when it names no MCP resource; else a wait for its block (raising to refuse it)."""


def mentioned(text: str) -> list[str]:
    """The paths ``text`` mentions with ``@`` (quotes removed), each once, in order."""
    return list(dict.fromkeys("".join(groups) for groups in MENTION.findall(text)))


async def attach_mentions(
    text: str, cwd: Path, may_attach: Gatekeeper, resources: ResourceReader | None = None
) -> tuple[str, list[str]]:
    """``text`` followed by every mentioned file (or ``@server:uri`` resource) that may be attached; and a line
    for each that was not."""
    blocks, refused = [], []
    for name in mentioned(text):
        reading = resources(name) if resources is not None else None
        if reading is not None:
            try:
                blocks.append(await reading)
            except Exception as error:  # the server's answer, said to the person
                refused.append(f"{_as_written(name)}: not attached ({error})")
            continue
        path = (cwd / name).expanduser()
        if not path.is_file():
            refused.append(f"{_as_written(name)}: no such file, not attached")
            continue
        data = path.read_bytes()[:MAX_ATTACHED_BYTES]
        if b"\0" in data[:8192]:
            refused.append(f"{_as_written(name)}: not a text file, not attached")
            continue
        problem = await may_attach(name)
        if problem is not None:
            refused.append(f"{_as_written(name)}: not attached ({problem})")
            continue
        content = data.decode("utf-8", errors="replace")
        note = "" if path.stat().st_size <= MAX_ATTACHED_BYTES else f" truncated to {MAX_ATTACHED_BYTES:,} bytes"
        blocks.append(f'<file path="{name}"{note}>\n{content}\n</file>')
    if not blocks:
        return text, refused
    return text + "\n\n" + "\n\n".join(blocks), refused


def _as_written(name: str) -> str:
    """The mention as the person would write it: quoted when the name has a space."""
    return f'@"{name}"' if any(c.isspace() for c in name) else f"@{name}"

"""``@path`` mentions: the named file's content is attached to the message."""

from __future__ import annotations

import re
from pathlib import Path

MENTION = re.compile(r"(?<!\S)@([^\s]+)")
MAX_ATTACHED_BYTES = 100_000


def attach_mentions(text: str, cwd: Path) -> str:
    """``text`` followed by the content of every mentioned file that exists (capped, text only)."""
    blocks = []
    for name in dict.fromkeys(MENTION.findall(text)):
        path = (cwd / name).expanduser()
        if not path.is_file():
            continue
        data = path.read_bytes()[:MAX_ATTACHED_BYTES]
        if b"\0" in data[:8192]:
            continue
        content = data.decode("utf-8", errors="replace")
        note = "" if path.stat().st_size <= MAX_ATTACHED_BYTES else f" truncated to {MAX_ATTACHED_BYTES:,} bytes"
        blocks.append(f'<file path="{name}"{note}>\n{content}\n</file>')
    if not blocks:
        return text
    return text + "\n\n" + "\n\n".join(blocks)

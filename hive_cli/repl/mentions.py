"""``@path`` mentions: the named file's content is attached to the message, if the read rules let it be read.

An image file (``@shot.png``) goes as an image, downscaled (``hive_cli.image_files``), to a model that takes
images; for any other model it is left out with the reason.

An attachment is a read like any other: a file the rules deny is not attached, one they ask about is
asked, and a name that is not a readable text file is reported instead of dropped without a word.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, NamedTuple

from engine.images import ImageError, looks_like_image
from hive_cli.image_files import Attached, attach_image

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


class Attachments(NamedTuple):
    """The prompt with the text files and resources attached, the lines for those left out, and the images."""

    text: str
    refused: list[str]
    images: list[dict[str, Any]]


async def attach_mentions(
    text: str,
    cwd: Path,
    may_attach: Gatekeeper,
    resources: ResourceReader | None = None,
    *,
    no_images: str | None = None,
) -> Attachments:
    """``text`` followed by every mentioned file (or ``@server:uri`` resource) that may be attached; a line
    for each that was not; and the mentioned images (none, each refused, when ``no_images`` says why)."""
    blocks, refused, images = [], [], []
    for name in mentioned(text):
        if looks_like_image(name):
            attached = await _image(name, cwd, may_attach, no_images)
            if isinstance(attached, str):
                refused.append(attached)
            else:
                blocks.append(attached.note)
                images.append(attached.part)
            continue
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
        return Attachments(text, refused, images)
    return Attachments(text + "\n\n" + "\n\n".join(blocks), refused, images)


async def _image(name: str, cwd: Path, may_attach: Gatekeeper, no_images: str | None) -> Attached | str:
    """The mentioned image, or the line saying why it was left out."""
    if no_images is not None:
        return f"{_as_written(name)}: not attached ({no_images})"
    try:
        return await attach_image(name, cwd, may_attach)
    except ImageError as problem:
        return f"{_as_written(name)}: not attached ({problem})"


def _as_written(name: str) -> str:
    """The mention as the person would write it: quoted when the name has a space."""
    return f'@"{name}"' if any(c.isspace() for c in name) else f"@{name}"

"""Image files the person attaches (``@shot.png``, a pasted path, ``hive run --image``): judged, loaded, described.

An attachment is a read like any other: the read rules judge the path first (a denied one is not read),
then ``engine.images`` reads it safely, downscales and re-encodes it. Nothing here imports Pillow; loading
an image does.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from engine.errors import UserError
from engine.images import ImageError, load_image, looks_like_image
from engine.model.vision import no_vision_message

if TYPE_CHECKING:
    from engine.session import Session

Gatekeeper = Callable[[str], Awaitable[str | None]]
"""Given a path as written, why it may not be read (None: it may)."""


class Attached(Struct, frozen=True, kw_only=True):
    """One image ready to go with the prompt, and the line that tells the person (and the model) what it is."""

    part: dict[str, Any]
    note: str


async def attach_image(name: str, cwd: Path, may_read: Gatekeeper) -> Attached:
    """The image file ``name`` (relative to ``cwd``) judged and loaded; ``ImageError`` says why it was not."""
    path = (cwd / name).expanduser()
    if not path.is_file():
        raise ImageError("no such file")
    problem = await may_read(name)
    if problem is not None:
        raise ImageError(problem)
    image = await asyncio.to_thread(load_image, path)  # decoding and scaling take a moment: the REPL stays live
    return Attached(part=image.part(), note=f"[{name} is attached as an image: {image.describe()}]")


_ESCAPED = re.compile(r"\\(.)")


def pasted_image(line: str, cwd: Path) -> str | None:
    """The path when the whole of ``line`` is one path to an existing image file (pasted, or dropped by a
    terminal: quoted, with backslash escapes, or a ``file://`` URL); else None."""
    text = line.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    elif "\\" in text:
        text = _ESCAPED.sub(r"\1", text)
    text = text.removeprefix("file://")
    if not text or "\n" in text or not looks_like_image(text):
        return None
    return text if (cwd / text).expanduser().is_file() else None


async def attach_files(session: Session, paths: Sequence[Path], cwd: Path, *, allow_asks: bool) -> str:
    """Attach ``hive run --image`` files to the session's next prompt; the lines naming them, for the prompt.

    Raises ``UserError`` (exit 2) for a model that takes no images and for a file not attached: an image
    asked for on the command line is never left out without a word, nor sent where it would fail the request.
    """
    if not paths:
        return ""
    if not session.accepts_images():
        raise UserError(f"--image: {no_vision_message(session.model)}")

    async def may_read(name: str) -> str | None:
        judgement = session.judge_read(name)
        if judgement.verdict == "deny" or (judgement.verdict == "ask" and not allow_asks):
            return f"the read rules {'deny' if judgement.verdict == 'deny' else 'ask about'} it: {judgement.reason}"
        return None

    attached = []
    for path in paths:
        try:
            attached.append(await attach_image(str(path), cwd, may_read))
        except ImageError as problem:
            raise UserError(f"--image {path}: not attached ({problem})") from None
    session.attach([a.part for a in attached])
    return "\n\n" + "\n".join(a.note for a in attached)

"""An ACP prompt (a list of content blocks) as the text of one hive prompt.

Text is taken as it is; a resource the editor embedded (a file's text, a selection) is put under its uri in a
fenced block; a link to a resource is named so the model can read it with its tools. Other blocks (images,
audio: not advertised) are named as left out rather than dropped without a word.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from acp.schema import EmbeddedResourceContentBlock, ResourceContentBlock, TextContentBlock, TextResourceContents


def prompt_text(blocks: Sequence[Any]) -> str:
    """The blocks joined into the prompt hive runs."""
    return "\n\n".join(part for block in blocks if (part := _part(block)))


def _part(block: Any) -> str:
    match block:
        case TextContentBlock(text=text):
            return str(text)
        case EmbeddedResourceContentBlock(resource=TextResourceContents(uri=uri, text=text)):
            return f"Context from {_place(uri)}:\n````\n{text}\n````"
        case ResourceContentBlock(uri=uri):
            return f"(See {_place(uri)}.)"
        case _:
            return f"(A {getattr(block, 'type', 'content')} block was left out: hive takes text prompts.)"


def _place(uri: str) -> str:
    return uri.removeprefix("file://")

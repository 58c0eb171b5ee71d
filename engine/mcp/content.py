"""An MCP result's content as the text the model gets."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any


def result_text(result: Any) -> str:
    """A ``CallToolResult`` or ``ReadResourceResult`` as text: text blocks as they are, the rest described."""
    blocks = getattr(result, "content", None)
    if blocks is None:
        blocks = getattr(result, "contents", None) or []
    parts = [block_text(block) for block in blocks]
    structured = getattr(result, "structured_content", None)
    if structured is not None and not any(getattr(b, "type", None) == "text" for b in blocks):
        parts.append(json.dumps(structured, ensure_ascii=False, default=str))
    return "\n".join(p for p in parts if p) or "(no output)"


def block_text(block: Any) -> str:
    """One content block as text (a text block as it is; images, audio and blobs described)."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind}: {block.mime_type}, {_decoded_size(block.data)} bytes]"
    if kind == "resource":
        return _resource_text(block.resource)
    if kind == "resource_link":
        return f"[resource link: {block.uri}{' (' + block.name + ')' if block.name else ''}]"
    if hasattr(block, "uri"):  # a resource's contents, from resources/read
        return _resource_text(block)
    return f"[{kind or type(block).__name__} content]"


def _resource_text(resource: Any) -> str:
    text = getattr(resource, "text", None)
    if text is not None:
        return str(text)
    blob = getattr(resource, "blob", None) or ""
    mime = getattr(resource, "mime_type", None) or "binary"
    return f"[resource {resource.uri}: {mime}, {_decoded_size(blob)} bytes]"


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)

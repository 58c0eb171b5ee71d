"""The readable text of a downloaded page: trafilatura for HTML, pypdf for PDF, plain text as it is.

Extraction is CPU-bound (a few ms for a small page, tens for a large one), so ``extract`` runs it in a
thread. Comment sections are left out (trafilatura keeps them unless told not to) and so are links, so
the text carries no URLs for a model to cite. A page with no text left is a ``FetchError``.
"""

from __future__ import annotations

import asyncio
import io
from typing import Literal

from msgspec import Struct

from engine.research.sources import FetchError

PageKind = Literal["html", "text", "pdf"]
_TITLE_LIMIT = 200


class Extracted(Struct, frozen=True):
    """The title and main text of a page (markdown for HTML: headings, lists and tables kept)."""

    title: str
    text: str


async def extract(body: bytes, kind: PageKind, *, url: str, charset: str | None = None) -> Extracted:
    """Extract ``body`` (of ``kind``, downloaded from ``url``) in a thread; raises ``FetchError`` when empty."""
    return await asyncio.to_thread(extract_now, body, kind, url=url, charset=charset)


def extract_now(body: bytes, kind: PageKind, *, url: str, charset: str | None = None) -> Extracted:
    """``extract`` on the calling thread."""
    if kind == "html":
        title, text = _from_html(body, url)
    elif kind == "pdf":
        title, text = _from_pdf(body, url)
    else:
        title, text = "", body.decode(charset or "utf-8", errors="replace")
    text = text.strip()
    if not text:
        raise FetchError(url, "no readable text could be extracted")
    return Extracted(title=_title(title, text, url), text=text)


def _from_html(body: bytes, url: str) -> tuple[str, str]:
    import trafilatura
    from trafilatura.metadata import extract_metadata

    text = trafilatura.extract(
        body, url=url, output_format="markdown", include_comments=False, include_links=False, include_tables=True
    )
    if not text:
        return "", ""
    tree = trafilatura.load_html(body)
    metadata = extract_metadata(tree, default_url=url, extensive=False) if tree is not None else None
    return (metadata.title or "") if metadata is not None else "", text


def _from_pdf(body: bytes, url: str) -> tuple[str, str]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(body))
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise FetchError(url, f"unreadable PDF ({exc})") from exc
    title = reader.metadata.title if reader.metadata is not None else None
    return str(title or ""), "\n\n".join(page.strip() for page in pages if page.strip())


def _title(title: str, text: str, url: str) -> str:
    title = " ".join(title.split())
    if not title:
        first_line = text.lstrip("# ").splitlines()[0]
        title = " ".join(first_line.split())
    return title[:_TITLE_LIMIT] or url

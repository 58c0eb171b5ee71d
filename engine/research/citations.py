"""Citations owned by code: the writer cites ``[n]`` only; this module checks, renumbers and lists them.

Numbers no source has are removed (and reported), the rest are renumbered in order of first use,
URLs the writer typed are taken out (only the registry's appear, in ``## Sources``), and a sources
section the writer added is replaced by the one built here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from msgspec import Struct

from engine.research.result import CitedSource, Source

CITATION = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\((?:https?://|file:|/)[^)]*\)")
_BARE_URL = re.compile(r"<?\bhttps?://[^\s)>\]]+>?")
_OWN_SOURCES = re.compile(r"^#{1,6}\s*(sources|references|bibliography|works cited)\b.*", re.IGNORECASE | re.MULTILINE)


class CitedReport(Struct, frozen=True, kw_only=True):
    """The report body with its citations settled."""

    body: str
    sources: tuple[CitedSource, ...]
    removed: tuple[int, ...]
    """Numbers cited that no source has, in order of appearance."""


def settle_citations(text: str, registry: Mapping[int, Source]) -> CitedReport:
    """``text`` with unknown citations removed and the rest renumbered in order of first use."""
    body = strip_foreign_urls(_without_own_sources(text), registry)
    order: dict[int, int] = {}
    removed: list[int] = []

    def renumber(match: re.Match[str]) -> str:
        kept = []
        for number in (int(n) for n in re.split(r"[,;]", match.group(1))):
            if number not in registry:
                removed.append(number)
                continue
            new = order.setdefault(number, len(order) + 1)
            if new not in kept:
                kept.append(new)
        return "".join(f"[{n}]" for n in kept)

    body = CITATION.sub(renumber, body)
    body = re.sub(r"[ \t]+([.,;:])", r"\1", body)  # a removed marker leaves no space before punctuation
    cited = tuple(CitedSource(number=new, source=registry[old]) for old, new in order.items())
    return CitedReport(body=body.strip(), sources=cited, removed=tuple(removed))


def strip_foreign_urls(text: str, registry: Mapping[int, Source]) -> str:
    """``text`` without URLs the registry does not hold (a markdown link keeps its words)."""
    known = {source.url for source in registry.values()}

    def link(match: re.Match[str]) -> str:
        return match.group(0) if _link_target(match.group(0)) in known else match.group(1)

    def bare(match: re.Match[str]) -> str:
        return match.group(0) if match.group(0).strip("<>") in known else ""

    return _BARE_URL.sub(bare, _MARKDOWN_LINK.sub(link, text))


def sources_section(cited: tuple[CitedSource, ...]) -> str:
    """The ``## Sources`` section: ``[n] Title — URL or path (accessed date)``, one a line."""
    if not cited:
        return "## Sources\n\nNo source was cited."
    lines = [
        f"[{c.number}] {c.source.title} — {c.source.url} (accessed {c.source.accessed.date().isoformat()})"
        for c in cited
    ]
    return "## Sources\n\n" + "\n".join(lines)


def _without_own_sources(text: str) -> str:
    found = _OWN_SOURCES.search(text)
    return text[: found.start()] if found else text


def _link_target(link: str) -> str:
    return link[link.index("](") + 2 : -1]

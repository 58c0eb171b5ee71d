"""What the web tools are configured with: the research settings they share, and how pages are cut."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from msgspec import Struct, field

from engine.research.options import ResearchOptions

if TYPE_CHECKING:
    from engine.config.loader import SessionConfig

PAGE_CHARS = 20_000
"""Characters of page text one ``web_fetch`` result holds (about 5,000 tokens); ``offset`` reads on."""
DOWNLOAD_BYTES = 5_000_000
"""A page (or PDF) larger than this is refused; the download stops there."""
SEARCH_RESULTS = 8


class WebToolOptions(Struct, frozen=True, kw_only=True):
    """The settings ``web_fetch`` and ``web_search`` follow (from the ``research`` section and the guards)."""

    research: ResearchOptions = field(default_factory=ResearchOptions)
    """Where to search (``provider``, ``searxng_url``) and whether private addresses may be fetched."""
    injection_action: Literal["flag", "withhold"] = "withhold"
    """What the prompt-injection guard does with a page that carries one: the permission files' choice when
    they switch the guard on, else withhold (as research does)."""
    page_chars: int = PAGE_CHARS
    download_bytes: int = DOWNLOAD_BYTES


def web_tool_options(config: SessionConfig) -> WebToolOptions:
    """The web tools' options for a session: its research settings and its prompt-injection guard's action."""
    guards = config.permissions.guards
    action = guards.prompt_injection_action if guards.prompt_injection else "withhold"
    return WebToolOptions(research=config.research, injection_action=action)

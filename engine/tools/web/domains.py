"""The permission subjects of the web tools: a fetch is judged by the domain it reads.

``web_fetch`` of ``https://docs.python.org/3/`` is the ``tools`` subject ``web_fetch: docs.python.org``
(a rule's name pattern may cover many: ``web_fetch: *.python.org``), with the tool's own name as a
subject that only counts when a rule names it (a deny of ``web_fetch`` denies every fetch). ``web_search``
is judged by its name. The domain is the URL's host as the fetcher will connect to it: lower case,
without a trailing dot, IPv6 in brackets.
"""

from __future__ import annotations

from urllib.parse import urlsplit

FETCH_TOOL = "web_fetch"
SEARCH_TOOL = "web_search"
SUBJECT_PREFIX = f"{FETCH_TOOL}: "


class NotFetchable(ValueError):
    """A URL ``web_fetch`` will not read (not http(s), no host, a malformed port)."""


def domain_of(url: str) -> str:
    """The domain ``url`` is judged by; raises ``NotFetchable`` when it is not an http(s) URL with a host."""
    try:
        parts = urlsplit(url.strip())
        _ = parts.port  # a malformed port raises here, not later in the fetcher
    except ValueError as exc:
        raise NotFetchable(f"{url!r} is not a valid URL ({exc})") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise NotFetchable(f"only http and https URLs are fetched, not {url!r}")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise NotFetchable(f"the URL {url!r} has no host")
    return f"[{host}]" if ":" in host else host


def fetch_subject(domain: str) -> str:
    """The ``tools`` subject (and the exact rule "always in this project" saves) for fetching from ``domain``."""
    return SUBJECT_PREFIX + domain

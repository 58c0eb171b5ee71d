"""hive's own page fetcher: bounded in time and size, http(s) only, and private addresses refused.

Every hop (the first request and each redirect) is checked before it is made: the scheme, then the
host is resolved and every address it resolves to is judged. The connection then goes to the address
that was judged (the host name still sent as Host and as the TLS server name), so a name that resolves
to a public address for the check and to a private one for the connection cannot slip through. Loopback,
private, link-local, shared and reserved addresses are refused unless ``allow_private_urls`` is set
(an intranet wiki, a local test server) or the address is in ``allowed_networks``. Proxies from the
environment are not used: a proxy would connect on our behalf, past the check.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin, urlsplit

from msgspec import Struct, field

from engine.research.extract import PageKind, extract
from engine.research.http_client import new_http_client
from engine.research.sources import FetchedPage, FetchError
from engine.research.unreachable import network_failure

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

USER_AGENT = "hive-research/0.1 (terminal coding agent; deep research)"
_ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,application/pdf;q=0.8"
_KINDS: dict[str, PageKind] = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/plain": "text",
    "text/markdown": "text",
    "application/pdf": "pdf",
}
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
PAGE_KINDS: Mapping[str, PageKind] = _KINDS
"""The content types research reads, and how each is extracted."""


class FetchLimits(Struct, frozen=True, kw_only=True):
    """How long, how large and how many at once pages are fetched."""

    timeout_s: float = 10.0
    """Deadline of one fetch, redirects and body included (extraction not included)."""
    max_bytes: int = 2_000_000
    """A page larger than this (after decompression) is refused; the download stops there."""
    max_redirects: int = 5
    max_concurrency: int = 4
    """Fetches in flight at once through one fetcher."""


class _Hop(Struct, frozen=True):
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    extensions: dict[str, Any] = field(default_factory=dict)


class Download(Struct, frozen=True, kw_only=True):
    """A page as downloaded, before extraction: where it ended up, what it is and how large."""

    body: bytes
    kind: PageKind
    charset: str | None
    final_url: str
    """The URL the last redirect led to (the URL asked for when there was none)."""
    content_type: str
    """The media type the server declared, without its parameters (``text/html``)."""


class RedirectedAway(FetchError):
    """A redirect to another host, not followed because the fetcher was told to stay on the host asked for."""

    def __init__(self, url: str, location: str) -> None:
        super().__init__(url, f"redirected to another host: {location}")
        self.location = location


class WebFetcher:
    """Fetches a web page and extracts its main text; implements ``PageFetcher``."""

    def __init__(
        self,
        *,
        allow_private_urls: bool = False,
        allowed_networks: Sequence[IPNetwork] = (),
        limits: FetchLimits | None = None,
        user_agent: str = USER_AGENT,
        kinds: Mapping[str, PageKind] = PAGE_KINDS,
        stay_on_host: bool = False,
    ) -> None:
        self.allow_private_urls = allow_private_urls
        self.allowed_networks = tuple(allowed_networks)
        """Networks fetched from although private (say an intranet's), with private URLs otherwise refused."""
        self.limits = limits or FetchLimits()
        self.kinds = dict(kinds)
        """The content types read (``PAGE_KINDS`` unless given); any other is refused."""
        self.stay_on_host = stay_on_host
        """Raise ``RedirectedAway`` instead of following a redirect to another host (or port or scheme)."""
        self._headers = {"User-Agent": user_agent, "Accept": _ACCEPT}
        self._slots = asyncio.Semaphore(self.limits.max_concurrency)

    async def fetch(self, url: str) -> FetchedPage:
        """The extracted text of ``url`` (the page keeps the URL asked for); raises ``FetchError``."""
        download = await self.download(url)
        page = await extract(download.body, download.kind, url=url, charset=download.charset)
        return FetchedPage(url=url, title=page.title, text=page.text, accessed=datetime.now(UTC))

    async def download(self, url: str) -> Download:
        """The body of ``url`` after its redirects, not yet extracted; raises ``FetchError``."""
        async with self._slots:
            return await self._download(url)

    async def _download(self, url: str) -> Download:
        import httpx2 as httpx

        timeout = self.limits.timeout_s
        try:
            async with asyncio.timeout(timeout), new_http_client(timeout, trust_env=False) as client:
                return await self._follow(client, url)
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise FetchError(url, f"no answer within {timeout:g} s") from exc
        except httpx.HTTPError as exc:
            offline = network_failure(exc)
            said = offline or " ".join(str(exc).split()) or type(exc).__name__
            raise FetchError(url, f"cannot reach it: {said}", unreachable=offline is not None) from exc
        except FetchError as exc:
            if exc.url == url:
                raise
            raise FetchError(url, f"redirected to {exc}") from exc

    async def _follow(self, client: Any, url: str) -> Download:
        current = url
        for _ in range(self.limits.max_redirects + 1):
            response = await self._send(client, await self._hops(current))
            try:
                location = response.headers.get("location") if response.status_code in _REDIRECTS else None
                if not location:
                    return await self._read(current, response)
            finally:
                await response.aclose()
            following = urljoin(current, location)
            if self.stay_on_host and _origin(following) != _origin(current):
                raise RedirectedAway(url, following)
            current = following
        raise FetchError(url, f"more than {self.limits.max_redirects} redirects")

    async def _send(self, client: Any, hops: list[_Hop]) -> Any:
        """The response from the first address that takes the connection (the last one's error otherwise)."""
        import httpx2 as httpx

        for hop in hops[:-1]:
            with contextlib.suppress(httpx.ConnectError):
                return await client.send(self._request(client, hop), stream=True)
        return await client.send(self._request(client, hops[-1]), stream=True)

    def _request(self, client: Any, hop: _Hop) -> Any:
        return client.build_request("GET", hop.url, headers=self._headers | hop.headers, extensions=hop.extensions)

    async def _hops(self, url: str) -> list[_Hop]:
        """A request for ``url`` per address of its host, once the scheme and every address pass the checks."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise FetchError(url, "only http and https URLs are fetched")
        host = parts.hostname
        if not host:
            raise FetchError(url, "the URL has no host")
        if self.allow_private_urls:
            return [_Hop(url)]
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError as exc:
            raise FetchError(url, "the URL has an invalid port") from exc
        addresses = await _resolve(url, host, port)
        for address in addresses:
            if not self._allowed(address):
                raise FetchError(
                    url, f"{host} is a private or local address ({address}); allow it with --allow-private-urls"
                )
        return [_pinned(url, host, address) for address in addresses]

    def _allowed(self, address: IPAddress) -> bool:
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if any(address in network for network in self.allowed_networks):
            return True
        return address.is_global and not address.is_multicast

    async def _read(self, url: str, response: Any) -> Download:
        if response.status_code >= 400:
            raise FetchError(url, f"HTTP {response.status_code}")
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        kind = self.kinds.get(content_type)
        if kind is None:
            raise FetchError(url, f"not a text page ({content_type or 'no content type'})")
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.limits.max_bytes:
            raise FetchError(url, f"larger than {self.limits.max_bytes} bytes ({declared} declared)")
        body = await self._body(url, response)
        return Download(
            body=body, kind=kind, charset=response.charset_encoding, final_url=url, content_type=content_type
        )

    async def _body(self, url: str, response: Any) -> bytes:
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > self.limits.max_bytes:
                raise FetchError(url, f"larger than {self.limits.max_bytes} bytes")
            chunks.append(chunk)
        return b"".join(chunks)


def _origin(url: str) -> tuple[str, str, int | None]:
    """The scheme, host and port of ``url`` (an http to https upgrade on the same host counts as the same)."""
    parts = urlsplit(url)
    scheme = "https" if parts.scheme == "http" else parts.scheme
    try:
        port = parts.port
    except ValueError:
        port = -1
    if port in (80, 443):
        port = None
    return scheme, (parts.hostname or "").lower().rstrip("."), port


async def _resolve(url: str, host: str, port: int) -> list[IPAddress]:
    """The addresses ``host`` stands for (an IP literal stands for itself, with no lookup)."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise FetchError(url, f"cannot resolve {host}", unreachable=True) from exc
    addresses = list(dict.fromkeys(ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos))
    if not addresses:
        raise FetchError(url, f"cannot resolve {host}")
    return addresses


def _pinned(url: str, host: str, address: IPAddress) -> _Hop:
    """A request for ``url`` that connects to ``address``, still naming ``host`` to the server and for TLS."""
    import httpx2 as httpx

    original = httpx.URL(url)
    netloc = original.netloc.decode("ascii")
    extensions = {"sni_hostname": host} if original.scheme == "https" else {}
    return _Hop(str(original.copy_with(host=str(address))), headers={"Host": netloc}, extensions=extensions)

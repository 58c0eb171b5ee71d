"""Where a remote MCP server's OAuth tokens and client registration are kept: one private file per server and URL.

``<user data>/mcp-auth/<name>-<digest of the URL>.json``, 0600 in a 0700 folder, replaced atomically
under a lock, so two hive processes refreshing at once never leave half a file. The file names the
server and its URL; a token is only ever read back for that same URL (a server whose URL changed
starts with no token). ``expires_at`` is kept beside the token because the SDK's provider, rebuilt
in a new process, forgets when a token expires and so never refreshes it before sending it (see
:class:`engine.mcp.oauth.provider.HiveOAuthProvider`).

The system keyring is not used: importing it costs more than hive's whole start budget for MCP,
and files readable only by their owner are what the other CLI tools keep too.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from engine.disk_full import writing
from engine.paths import user_data_dir
from engine.private_files import locked, open_private, private_dir
from engine.safe_read import UnsafeFile, read_bounded

if TYPE_CHECKING:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

AUTH_FOLDER = "mcp-auth"
_LOCK_FILE = ".lock"
_MOST_BYTES = 256 * 1024
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")


class StoredLogin(Struct, frozen=True):
    """What is kept for one server, in plain values (no token): for ``hive mcp login`` to report."""

    path: Path
    has_token: bool
    has_refresh_token: bool
    expires_at: float | None
    scope: str | None
    client_id: str | None


def auth_folder() -> Path:
    """The folder of every server's token file."""
    return user_data_dir() / AUTH_FOLDER


def token_path(name: str, url: str) -> Path:
    """The file that keeps ``name``'s tokens for ``url`` (another URL, another file)."""
    digest = hashlib.sha256(url.encode()).hexdigest()[:16]
    return auth_folder() / f"{_UNSAFE_NAME.sub('_', name)}-{digest}.json"


class TokenStore:
    """The SDK's ``TokenStorage`` for one server at one URL, on disk; tokens are re-read on every call.

    ``client``: a pre-registered client (the ``oauth:`` section's id and secret), offered before any
    stored registration and never written to the file (the secret stays in the settings).
    """

    def __init__(self, name: str, url: str, client: OAuthClientInformationFull | None = None) -> None:
        self.name = name
        self.url = url
        self.path = token_path(name, url)
        self.client = client

    # --- the SDK's TokenStorage protocol -------------------------------------------------------

    async def get_tokens(self) -> OAuthToken | None:
        """The stored token, its ``expires_in`` counted down to now (None when there is none)."""
        from mcp.shared.auth import OAuthToken

        saved = self._read().get("tokens")
        if not isinstance(saved, dict):
            return None
        expires_at = self.expires_at()
        if expires_at is not None:
            saved = {**saved, "expires_in": max(0, int(expires_at - time.time()))}
        return OAuthToken.model_validate(saved)

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Keep ``tokens`` with the moment they expire."""
        expires_at = None if tokens.expires_in is None else time.time() + tokens.expires_in
        self._update(tokens=tokens.model_dump(mode="json", exclude_none=True), expires_at=expires_at)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        """The pre-registered client, else the registration stored by an earlier login."""
        if self.client is not None:
            return self.client
        from mcp.shared.auth import OAuthClientInformationFull

        saved = self._read().get("client")
        return OAuthClientInformationFull.model_validate(saved) if isinstance(saved, dict) else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Keep a dynamic registration (a pre-registered client is not written: its secret stays in the settings)."""
        if self.client is not None and client_info.client_id == self.client.client_id:
            return
        self._update(client=client_info.model_dump(mode="json", exclude_none=True))

    # --- hive's own use ------------------------------------------------------------------------

    def expires_at(self) -> float | None:
        """When the stored token expires (seconds since the epoch), or None when unknown or no token."""
        value = self._read().get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    def summary(self) -> StoredLogin:
        """What is stored now, without any secret."""
        data = self._read()
        tokens = _mapping(data.get("tokens"))
        client = _mapping(data.get("client"))
        client_id = self.client.client_id if self.client is not None else client.get("client_id")
        return StoredLogin(
            path=self.path,
            has_token=bool(tokens.get("access_token")),
            has_refresh_token=bool(tokens.get("refresh_token")),
            expires_at=self.expires_at(),
            scope=tokens.get("scope"),
            client_id=client_id if isinstance(client_id, str) else None,
        )

    def forget_tokens(self) -> None:
        """Drop the token (the registration stays): the next connection needs a login."""
        self._update(tokens=None, expires_at=None)

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(read_bounded(self.path, limit=_MOST_BYTES))
        except (OSError, UnsafeFile, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("url") != self.url:
            return {}
        return data

    def _update(self, **changes: Any) -> None:
        folder = auth_folder()
        with writing("an MCP server's login", folder, "the login is as it was"), locked(folder, _LOCK_FILE):
            data = {**self._read(), "server": self.name, "url": self.url}
            for key, value in changes.items():
                if value is None:
                    data.pop(key, None)
                else:
                    data[key] = value
            _write_atomically(self.path, data)


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def forget_server(name: str) -> list[Path]:
    """Delete every token file of server ``name`` (whatever its URL); the files deleted."""
    folder = auth_folder()
    if not folder.is_dir():
        return []
    gone = []
    with locked(folder, _LOCK_FILE):
        for path in sorted(folder.glob(f"{_UNSAFE_NAME.sub('_', name)}-*.json")):
            if _names_server(path, name):
                path.unlink(missing_ok=True)
                gone.append(path)
    return gone


def _names_server(path: Path, name: str) -> bool:
    try:
        data = json.loads(read_bounded(path, limit=_MOST_BYTES))
    except (OSError, UnsafeFile, ValueError):
        return False
    return isinstance(data, dict) and data.get("server") == name


def _write_atomically(path: Path, data: dict[str, Any]) -> None:
    private_dir(path.parent)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open_private(partial, "w") as handle:
            handle.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)

"""What a machine grant's ``oauth:`` settings must hold, checked when the configuration is read (no SDK import).

:mod:`engine.mcp.oauth.machine` builds the grants; the configuration uses :func:`machine_settings_problem`
so a missing key is named when ``plugins.yaml`` is read, like any other problem of an entry.
"""

from __future__ import annotations

from typing import Literal

from engine.mcp.oauth.settings import OAuthEntry

SecretMethod = Literal["client_secret_basic", "client_secret_post"]
_SECRET_METHODS: tuple[SecretMethod, ...] = ("client_secret_basic", "client_secret_post")
MACHINE_GRANTS = ("client_credentials", "cross_app_access")
"""The grants that run with nobody present (no ``hive mcp login``)."""


class MachineAuthError(ValueError):
    """The ``oauth:`` settings cannot make a machine grant; ``str(error)`` names the key (never a secret)."""


def check_machine_settings(settings: OAuthEntry) -> None:
    """Raise :class:`MachineAuthError` unless ``settings`` hold what their machine grant needs (files unread)."""
    if settings.grant == "authorization_code":
        raise MachineAuthError(
            "oauth.grant authorization_code needs a person to log in (hive mcp login), not a machine grant"
        )
    if not settings.client_id:
        raise MachineAuthError(f"oauth.grant {settings.grant} needs oauth.client_id (a client registered beforehand)")
    if settings.grant == "cross_app_access":
        _check_cross_app(settings)
        return
    method = client_authentication(settings)
    if method == "private_key_jwt" and not settings.private_key_file:
        raise MachineAuthError("oauth.token_endpoint_auth_method private_key_jwt needs oauth.private_key_file")
    if method != "private_key_jwt" and not settings.client_secret:
        raise MachineAuthError(f"oauth.grant client_credentials with {method} needs oauth.client_secret")


def client_authentication(settings: OAuthEntry) -> SecretMethod | Literal["private_key_jwt"]:
    """How the client proves itself at the token endpoint: as configured, else a key's JWT, else a Basic secret."""
    method = settings.token_endpoint_auth_method
    if method == "none":
        raise MachineAuthError(f"oauth.grant {settings.grant} needs the client to authenticate: 'none' cannot")
    if method is not None:
        return method
    return (
        "private_key_jwt"
        if settings.private_key_file and settings.grant == "client_credentials"
        else "client_secret_basic"
    )


def _check_cross_app(settings: OAuthEntry) -> None:
    missing = [key for key in ("client_secret", "idp_token_endpoint", "id_token") if not getattr(settings, key)]
    if missing:
        raise MachineAuthError("oauth.grant cross_app_access needs " + ", ".join(f"oauth.{key}" for key in missing))
    if client_authentication(settings) not in _SECRET_METHODS:
        raise MachineAuthError(
            "oauth.grant cross_app_access authenticates with client_secret_basic or client_secret_post"
        )


def machine_settings_problem(settings: OAuthEntry | None) -> str | None:
    """What a machine grant's settings lack (None when they are complete, or for no machine grant)."""
    if settings is None or settings.grant not in MACHINE_GRANTS:
        return None
    try:
        check_machine_settings(settings)
    except MachineAuthError as exc:
        return str(exc)
    return None

"""The signed client assertion of ``private_key_jwt`` (RFC 7523 section 2.2): hive's key, read once, signing each assertion.

The key is a PEM private key file the person names in ``oauth.private_key_file``; the algorithm follows
from the key (an EC key on P-256 signs ES256, an RSA key RS256, an Ed25519 key EdDSA), so the setting
needs no second field that could disagree with it. The SDK's :class:`SignedJWTParameters` builds the
claims: ``iss`` and ``sub`` the client id, ``aud`` the authorization server's issuer, a fresh ``jti``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from mcp.client.auth.extensions.client_credentials import SignedJWTParameters

from engine.safe_read import read_bounded

KEY_FILE_LIMIT = 64 * 1024
"""A PEM private key is a few kilobytes; anything far larger is not one."""
_EC_ALGORITHMS = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512", "secp256k1": "ES256K"}

AssertionProvider = Callable[[str], Awaitable[str]]
"""Given the audience (the authorization server's issuer), a signed client assertion for it."""


class PrivateKeyError(ValueError):
    """The ``private_key_file`` cannot be used; ``str(error)`` says why (never the key)."""


def read_private_key(path_text: str) -> tuple[str, str]:
    """The PEM text of the key file ``path_text`` (``~`` expanded) and the JWT algorithm its key signs with."""
    path = Path(path_text).expanduser()
    try:
        pem = read_bounded(path, limit=KEY_FILE_LIMIT)
    except OSError as exc:
        raise PrivateKeyError(f"oauth.private_key_file {path}: cannot read it ({exc})") from None
    return pem.decode("ascii", errors="replace"), signing_algorithm(pem, path)


def signing_algorithm(pem: bytes, path: Path) -> str:
    """The JWT ``alg`` for the private key in ``pem``; raises :class:`PrivateKeyError` for anything else."""
    try:
        key = load_pem_private_key(pem, password=None)
    except (ValueError, TypeError) as exc:
        raise PrivateKeyError(
            f"oauth.private_key_file {path}: not an unencrypted PEM private key ({type(exc).__name__})"
        ) from None
    if isinstance(key, rsa.RSAPrivateKey):
        return "RS256"
    if isinstance(key, ec.EllipticCurvePrivateKey) and key.curve.name in _EC_ALGORITHMS:
        return _EC_ALGORITHMS[key.curve.name]
    if isinstance(key, ed25519.Ed25519PrivateKey | ed448.Ed448PrivateKey):
        return "EdDSA"
    raise PrivateKeyError(f"oauth.private_key_file {path}: hive signs with RSA, EC (P-256/384/521) or Ed25519 keys")


def assertion_provider(client_id: str, key_file: str) -> AssertionProvider:
    """Signs, for each token request, a client assertion of ``client_id`` with the key in ``key_file``."""
    pem, algorithm = read_private_key(key_file)
    parameters = SignedJWTParameters(issuer=client_id, subject=client_id, signing_key=pem, signing_algorithm=algorithm)
    return parameters.create_assertion_provider()

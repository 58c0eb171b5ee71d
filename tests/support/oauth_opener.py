"""A stand-in for the browser in login tests: ``oauth_opener.py [--tamper-state] [--record FILE] AUTHORIZATION_URL``.

``hive mcp login NAME --open-with "python oauth_opener.py"`` runs it with the authorization URL last. The
test authorization servers (hive's and the conformance suite's) approve at once: their answer is a
redirect to hive's loopback ``redirect_uri`` carrying ``code`` and ``state``. This script fetches the
URL without following redirects, then visits the redirect as a browser would. ``--tamper-state``
replaces the state first (hive must refuse it); ``--record FILE`` appends the URL it was given.
"""

from __future__ import annotations

import argparse
import sys
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def location_of(url: str) -> str:
    """Where the authorization endpoint redirects to (it answers at once)."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(url, timeout=30) as answer:
            raise SystemExit(f"the authorization endpoint answered {answer.status}, not a redirect")
    except urllib.error.HTTPError as redirect:
        if redirect.code not in (301, 302, 303, 307, 308):
            raise SystemExit(
                f"the authorization endpoint answered {redirect.code}: {redirect.read()[:300]!r}"
            ) from None
        return str(redirect.headers["Location"])


def tampered(url: str) -> str:
    """``url`` with its ``state`` replaced."""
    parts = urlsplit(url)
    query = [(key, "forged" if key == "state" else value) for key, value in parse_qsl(parts.query)]
    return urlunsplit(parts._replace(query=urlencode(query)))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tamper-state", action="store_true")
    parser.add_argument("--record", type=Path)
    parser.add_argument("url")
    options = parser.parse_args()
    if options.record:
        with options.record.open("a", encoding="utf-8") as file:
            file.write(options.url + "\n")
    callback = location_of(options.url)
    if options.tamper_state:
        callback = tampered(callback)
    try:
        with urllib.request.urlopen(callback, timeout=30) as page:
            page.read()
    except urllib.error.HTTPError as refused:
        print(f"the redirect answered {refused.code}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

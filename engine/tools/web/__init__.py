"""The agent's web tools: ``web_fetch`` (a page as extracted text) and ``web_search`` (the configured providers).

Both are built on ``hive research``'s parts: its fetcher (http(s) only, every hop checked, private
addresses refused), its extraction (trafilatura, pypdf), its search providers with their fallback and
its injection guard. Everything a page or a search says is marked as untrusted content. Permissions
are judged per domain for ``web_fetch`` (see :mod:`engine.tools.web.domains`).
"""

"""MCP servers as tool providers (issue #13).

``config`` reads which servers to run (``plugins.yaml``, ``.mcp.json``); ``connection`` keeps one
server connected (the ``mcp`` SDK, imported only when a server starts); ``tools`` turns its tools
into hive tools; ``manager`` runs them all as one toolset with a ``status()`` per server.
"""

"""``hive acp``: hive as an Agent Client Protocol agent over stdio, one more host beside the REPL and ``hive run``.

An editor (Zed, JetBrains, Neovim, Emacs) starts ``hive acp`` and speaks JSON-RPC on its stdin and stdout.
The official SDK (module ``acp``) carries the protocol; this package maps it onto hive's sessions:
:mod:`hive_cli.acp.agent` answers the editor's requests, :mod:`hive_cli.acp.updates` turns engine events into
``session/update`` notifications, :mod:`hive_cli.acp.permission` asks the editor what hive's rules leave to a
person. Only ``hive acp`` imports the SDK.
"""

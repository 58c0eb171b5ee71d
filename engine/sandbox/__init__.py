"""The OS sandbox around shell commands: what a command may read, write and reach.

Modules, each with one job: ``options`` (what the user chose), ``environment`` (the child's
environment without secrets), ``scan`` (the bounded, cached walk of the project), ``credentials``
(which paths hold secrets), ``profile`` (what is mounted how), ``bwrap`` / ``probe`` /
``bubblewrap`` (Linux), ``seatbelt`` (macOS), ``base`` (the ``Sandbox`` protocol, no sandbox, and
``create_sandbox``), ``denial`` (recognising a command the sandbox blocked), ``selftest``.

Nothing here is imported when hive starts; the shell tool imports it on first use.
"""

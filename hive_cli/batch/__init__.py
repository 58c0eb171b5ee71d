"""``hive batch``: many tasks, each isolated in its own working copy, run by ``hive run`` (a host, not an engine)."""

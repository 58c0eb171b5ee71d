"""`hive batch`: many isolated tasks, each a `hive run`, on a local pool of workers or on a Ray cluster."""

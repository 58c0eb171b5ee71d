from tests.hive_cli.trust.world import world

__all__ = ["world"]

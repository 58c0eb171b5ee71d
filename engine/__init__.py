"""hive's reusable agent engine. It never imports hive_cli or any terminal UI library."""

__version__ = "0.1.0"

"""What hive does with saved sessions beyond writing and reading one: fork, search, export and import."""

"""Workspace trust: a project's own configuration only tightens hive until the person trusts it."""

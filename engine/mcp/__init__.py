"""MCP servers as tool providers (issue #13): configured in ``.ironhive/plugins.yaml``; so far, the settings."""

"""Authorization for remote MCP servers (OAuth 2.1 per the MCP spec): settings, tokens, login and the HTTP auth."""

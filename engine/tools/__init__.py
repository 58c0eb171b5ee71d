"""Tools: the protocol, the built-in tools, and toolset wrappers."""

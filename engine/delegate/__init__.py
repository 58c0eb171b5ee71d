"""Sub-agents (``agent_{name}`` tools run by ``build_agent``) and the advisor tool (issue #17)."""

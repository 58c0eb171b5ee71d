"""Sub-agents and the advisor (issue #17), built with ``engine.agent.build_agent``; so far, the settings."""

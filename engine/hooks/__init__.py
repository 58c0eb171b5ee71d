"""Hooks: shell commands the person configures (``hooks:`` in settings.yaml) run at named points of a session."""

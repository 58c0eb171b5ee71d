"""The headless contract of ``hive run``: a structured final answer, conversations and approvals over stdin."""

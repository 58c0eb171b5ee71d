"""Checkpoints and undo (issue #18), attached in the policy's approved-call slot; so far, the settings."""

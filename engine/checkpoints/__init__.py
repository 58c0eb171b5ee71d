"""Checkpoints and undo (issue #18): ``store`` (blobs and per-turn manifests), ``tree`` (the shell-command
snapshot), ``wrapper`` (the approved-call slot), ``recorder`` (turn boundaries), ``undo``, ``attach``."""

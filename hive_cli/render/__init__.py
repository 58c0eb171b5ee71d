"""Terminal rendering for the REPL: finished markdown blocks printed once, only the block in progress live."""

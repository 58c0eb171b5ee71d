"""The agent loop and what one run holds: the loop, a tool round, the run's state and account,
cut-reply resumption, the recovery table, the tracking trace."""

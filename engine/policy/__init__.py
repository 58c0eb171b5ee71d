"""Policy: modes, permission rules, the approval gate and result guards."""

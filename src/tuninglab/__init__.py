"""InnoDB Tuning Lab: rerunnable InnoDB experiments."""

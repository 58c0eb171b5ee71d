"""Stores that keep themselves small: caps by age, count and size, applied at most once a day."""

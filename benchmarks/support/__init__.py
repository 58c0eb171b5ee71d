"""Helpers the benchmarks share (not benchmarks themselves: make bench does not run them)."""

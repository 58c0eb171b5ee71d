"""Test harness shared by hive's test suites: local model servers, cassette replay and a network block."""

"""Configuration: the loader (`SessionConfig`), the settings records, the settings files, validation
of untrusted records, shared defaults, the bounded YAML reader."""

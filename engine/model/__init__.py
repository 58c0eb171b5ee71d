"""The model layer: request/response types, stream assembly, the litellm adapter, retries."""

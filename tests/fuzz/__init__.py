"""janus's differential program fuzzer (see README.md)."""

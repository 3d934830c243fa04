"""Benchmarks: eager vs naive tf.function vs janus vs hand-written expert graphs."""

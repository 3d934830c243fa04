#!/usr/bin/env bash
# Set up (if needed) and run the benchmark suite: eager vs tf.function vs janus (vs expert).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export TF_CPP_MIN_LOG_LEVEL=3
exec .venv/bin/python -m benchmarks.run "$@"

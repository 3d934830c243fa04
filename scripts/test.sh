#!/usr/bin/env bash
# Set up (if needed) and run the default test suite (slow tests excluded: -m slow runs them).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export TF_CPP_MIN_LOG_LEVEL=3
exec .venv/bin/python -m pytest -q "$@"

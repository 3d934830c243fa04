#!/usr/bin/env bash
# Set up (if needed) and run the default test suite (slow tests excluded: -m slow runs them).
# The run is split by file into JANUS_TEST_SHARDS pytest processes (default 2: one per
# core; tests/shards.py); naming test paths, or JANUS_TEST_SHARDS=1, runs one process.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export TF_CPP_MIN_LOG_LEVEL=3
shards=${JANUS_TEST_SHARDS:-2}
for arg in "$@"; do
  if [[ $arg != -* && -e ${arg%%::*} ]]; then shards=1; fi
done
if [ "$shards" -le 1 ]; then
  exec .venv/bin/python -m pytest -q "$@"
fi
logs=$(mktemp -d "${TMPDIR:-/tmp}/janus-tests-XXXXXX")
echo "running the tests in $shards processes (logs: $logs)"
pids=()
for ((i = 0; i < shards; i++)); do
  JANUS_TEST_SHARD=$i/$shards .venv/bin/python -m pytest -q --basetemp="$logs/tmp$i" "$@" \
    >"$logs/shard$i.log" 2>&1 &
  pids+=($!)
done
status=0
empty=0
for ((i = 0; i < shards; i++)); do
  code=0
  wait "${pids[$i]}" || code=$?
  echo "===== shard $i of $shards (exit $code) ====="
  cat "$logs/shard$i.log"
  if [ "$code" -eq 5 ]; then empty=$((empty + 1)); elif [ "$code" -ne 0 ]; then status=$code; fi
done
if [ "$empty" -eq "$shards" ]; then status=5; fi
if [ "$status" -eq 0 ]; then rm -rf "$logs"; fi
exit "$status"

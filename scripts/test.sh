#!/usr/bin/env bash
# Installs hopkit with its test extras, starts the PostgreSQL server the store tests use,
# and runs the whole test suite (unit + integration with the real SmolLM2 model,
# the real BM25 index and both databases). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh test
HOPKIT_TEST_POSTGRES_URL="$(bash scripts/start-postgres.sh | tail -n 1)"
export HOPKIT_TEST_POSTGRES_URL
export HOPKIT_REQUIRE_POSTGRES=1
if [ -z "${HOPKIT_DATA_DIR:-}" ] && [ -d ../shared/data ]; then
  HOPKIT_DATA_DIR="$(cd ../shared/data && pwd)"
  export HOPKIT_DATA_DIR
fi
exec .venv/bin/python -m pytest "$@"

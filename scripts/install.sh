#!/usr/bin/env bash
# Creates .venv and installs hopkit into it (with the test extras when given "test").
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
if [ "${1:-}" = "test" ]; then
  .venv/bin/python -m pip install -q -e ".[test]"
else
  .venv/bin/python -m pip install -q -e .
fi

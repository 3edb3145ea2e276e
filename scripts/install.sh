#!/usr/bin/env bash
# Creates .venv and installs hopkit into it (with the test extras when given "test").
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
bash scripts/install-llama-cpp.sh
if [ "${1:-}" = "test" ]; then
  # The dedicated-model judge tests build tiny models with torch. Its CPU build first: on
  # machines that keep torch 2.13.0+cpu on disk pip takes that file, and a bare "torch"
  # requirement would otherwise resolve to a CUDA build of several GB.
  .venv/bin/python -m pip install -q "torch==2.13.0"
  .venv/bin/python -m pip install -q -e ".[test,judges,transformers,ray,dense,serve]"
else
  .venv/bin/python -m pip install -q -e .
fi

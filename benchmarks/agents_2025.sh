#!/usr/bin/env bash
# The 2025 methods (issue 51) with Qwen2.5-Coder-1.5B on the first 30 questions of three samples: one method at a
# time over the samples (each invocation resumes what the bench store holds), then every method with the
# baselines they are compared with, into the agents-2025 section of docs/notebook.md. Hours on two cores
# (DRAGIN, through the transformers backend, the longest: minutes per question).
#   bash benchmarks/agents_2025.sh
set -uo pipefail
cd "$(dirname "$0")/.."
export HOPKIT_DATA_DIR=${HOPKIT_DATA_DIR:-../shared/data}
datasets="hotpotqa 2wikimultihopqa musique"
for methods in "search-r1" "search-o1" "adaptive-rag" "ircot" "r1-searcher" "autorefine" "dragin" \
               "oner ircot iter-retgen flare search-r1 search-o1 r1-searcher autorefine adaptive-rag dragin"; do
  echo "=== $methods $(date)"
  .venv/bin/hopkit campaign run --datasets $datasets --methods $methods --limit 30 --section agents-2025 \
    --write-repository || echo "FAILED: $methods"
done

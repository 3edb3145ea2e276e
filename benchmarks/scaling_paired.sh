#!/usr/bin/env bash
# The scaling benchmark's goal cells (OneR and IRCoT, threads and Ray, 16 and 32 workers, 2,000 questions)
# for an earlier commit and for the checkout, each cell of the two run back to back, so that a shared
# machine's hour-to-hour speed falls on both alike. Cells are labelled COMMIT-paired.
#   bash benchmarks/scaling_paired.sh BEFORE_COMMIT [DB_URL]
# The earlier commit is checked out into /tmp/hopkit-before-COMMIT (a git worktree) and imported from there.
set -euo pipefail
cd "$(dirname "$0")/.."
before=${1:?usage: scaling_paired.sh BEFORE_COMMIT [DB_URL]}
db=${2:-${HOPKIT_DB_URL:?give the PostgreSQL URL or set HOPKIT_DB_URL}}
tree=/tmp/hopkit-before-$before
[ -d "$tree" ] || git worktree add -f "$tree" "$before" >/dev/null
now=$(git rev-parse --short HEAD)
for method in oner ircot; do
  for executor in threads ray; do
    for workers in 16 32; do
      for side in before now; do
        if [ "$side" = before ]; then src=$tree/src label=$before-paired; else src=src label=$now-paired; fi
        PYTHONPATH=$src .venv/bin/python -m benchmarks.scaling --db "$db" --questions 2000 --workers "$workers" \
          --methods "$method" --executors "$executor" --label "$label"
      done
    done
  done
done

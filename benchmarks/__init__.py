"""The scripts behind docs/benchmarks.md (run from the repository root: ``python -m benchmarks.NAME``).

The benchmark machines keep their GGUF models in ``~/.cache/local-models`` (where
``../shared/tools/install-local-models.sh`` puts them); hopkit reads a model from
``$HOPKIT_MODEL_DIR`` instead of downloading it, so that folder is the default here.
"""

import os

os.environ.setdefault("HOPKIT_MODEL_DIR", os.path.expanduser("~/.cache/local-models"))

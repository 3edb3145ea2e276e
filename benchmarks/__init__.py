"""The scripts behind docs/benchmarks.md (run from the repository root: ``python -m benchmarks.NAME``).

The benchmark machines keep their GGUF models in ``~/.cache/local-models`` (where
``../shared/tools/install-local-models.sh`` puts them); hopkit reads a model from
``$HOPKIT_MODEL_DIR`` instead of downloading it, so that folder is the default here
(:func:`benchmarks.environment.use_local_models`). Where everything else is: :mod:`benchmarks.environment`.

The QA benchmark's variants are the methods' declared experiments (``experiments.yaml`` in each method's
package) and the YAML files in ``benchmarks/configs/`` that extend them (:mod:`benchmarks.variants`);
``python -m benchmarks.qa_pipelines VARIANT DATASET`` prints one as the config ``hopkit run`` takes.
"""

from benchmarks.environment import use_local_models

use_local_models()

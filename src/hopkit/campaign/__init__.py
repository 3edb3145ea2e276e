"""hopkit's own QA benchmark campaign, the one behind ``docs/``: the benchmark's variants of the methods'
declared experiments (:mod:`hopkit.campaign.variants`), running them into the bench store
(:mod:`hopkit.campaign.qa_bench`), the calibrated thresholds, the paired tables and the pages built from
the saved runs. ``hopkit campaign TOOL`` runs each tool; run it from a checkout.

The benchmark machines keep their GGUF models in ``~/.cache/local-models`` (where
``../shared/tools/install-local-models.sh`` puts them); hopkit reads a model from ``$HOPKIT_MODEL_DIR``
instead of downloading it, so that folder is the default here
(:func:`hopkit.campaign.environment.use_local_models`).
"""

from hopkit.campaign.environment import use_local_models

use_local_models()

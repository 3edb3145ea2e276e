"""The measurements behind docs/benchmarks.md that are not user features (run from the repository root:
``python -m benchmarks.NAME``): each a standalone script over hopkit's public API, none importing another.

The QA campaign (its variants, runs, calibration, paired tables and pages) is part of the package:
:mod:`hopkit.campaign`, run as ``hopkit campaign TOOL``.
"""

from hopkit.campaign.environment import use_local_models

use_local_models()

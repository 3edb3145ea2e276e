"""Where the benchmarks keep their files and what they read from the environment, in one place.

Every script takes its folders, its store and its default model from here:

- ``ROOT``: the repository; ``DOCS_IMG``, ``BENCHMARKS_MD`` (the measurements) and ``NOTEBOOK_MD`` (the QA
  campaign's appendix), what the scripts write.
- ``RESULTS`` and ``RUNS``: what the repository keeps (``benchmarks/results/``, the saved runs).
- ``BENCH_HOME``: the bench store's folder (``.hopkit-bench/``, not committed); ``BENCH_STORE``
  its SQLite file, the one whose runs are saved to ``RUNS``.
- ``LLM_NAME``: the model config every benchmark runs by default.
- ``$HOPKIT_DATA_DIR`` (the samples and the IRCoT authors' prompt files): :func:`data_dir`.
- ``$HOPKIT_MODEL_DIR`` (GGUF files already on the machine): :func:`use_local_models`.
- ``$HOPKIT_HOME`` (hopkit's working folder): :func:`use_bench_home`, :func:`use_home`.
- ``$HOPKIT_CHROMIUM`` (the browser the report benchmark drives): :func:`chromium`.

No benchmark script reads or sets the environment itself (tests/benchmarks/test_package.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from hopkit import environment


def _repository() -> Path:
    """The hopkit checkout this package runs from (an editable install), else the current folder."""
    checkout = Path(__file__).resolve().parents[3]
    return checkout if (checkout / "benchmarks" / "results").is_dir() else Path.cwd()


ROOT = _repository()
DOCS = ROOT / "docs"
DOCS_IMG = DOCS / "img"
BENCHMARKS_MD = DOCS / "benchmarks.md"
#: The appendix the QA campaign writes its sections into (runs, paired tables, calibration, findings).
NOTEBOOK_MD = DOCS / "notebook.md"
RESULTS = ROOT / "benchmarks" / "results"
RUNS = RESULTS / "runs"
BENCH_HOME = ROOT / ".hopkit-bench"
BENCH_STORE = BENCH_HOME / "hopkit.db"
LLM_NAME = "qwen2.5-coder-1.5b-4k"
#: Where the benchmark machines keep their GGUF models (``../shared/tools/install-local-models.sh``).
LOCAL_MODELS = Path("~/.cache/local-models").expanduser()


def use_bench_home() -> None:
    """Make ``.hopkit-bench/`` hopkit's working folder (store, indexes, LLM cache) unless
    ``$HOPKIT_HOME`` already names one."""
    use_home(BENCH_HOME)


def use_home(folder: Path) -> None:
    """Make ``folder`` hopkit's working folder unless ``$HOPKIT_HOME`` already names one."""
    environment.set_default(environment.HOPKIT_HOME, str(folder))


def use_model_server(base_url: str, model: str) -> None:
    """Point the ``openai-compatible`` LLM config (and Ray workers, which inherit these) at a server."""
    environment.set_variable("OPENAI_BASE_URL", base_url)
    environment.set_variable("HOPKIT_OPENAI_MODEL", model)


def chromium() -> str | None:
    """The Chromium to drive: ``$HOPKIT_CHROMIUM``, else ``chromium`` on the PATH (None: neither)."""
    return environment.variable("HOPKIT_CHROMIUM") or shutil.which("chromium")


def use_local_models() -> None:
    """Read GGUF models from :data:`LOCAL_MODELS` unless ``$HOPKIT_MODEL_DIR`` names another folder,
    so that hopkit reads the machine's models instead of downloading them."""
    environment.set_default(environment.HOPKIT_MODEL_DIR, str(LOCAL_MODELS))


def data_dir() -> Path:
    """``$HOPKIT_DATA_DIR``, the folder of the samples and the IRCoT authors' prompt files.

    Raises:
        SystemExit: it is not set (the message says what to set it to).
    """
    folder = environment.data_dir()
    if folder is None:
        raise SystemExit("set HOPKIT_DATA_DIR to the folder of the shared samples (e.g. ../shared/data)")
    return folder

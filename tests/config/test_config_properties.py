"""Property-based tests of the config loader: whatever the file holds, hopkit either builds
the config or raises a one-line ConfigError naming the file and the field, and never
calls anything a config may not name."""

import math
import pkgutil
import sys
import tempfile
import types
from pathlib import Path
from typing import Any, Iterator
from unittest import mock

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hopkit import config as config_module
from hopkit.config import instantiate, load_yaml
from hopkit.errors import ConfigError

pytestmark = pytest.mark.unit

PIPELINES = ["hopkit.pipelines.generation.one_step.OneRGenerationPipelineConfig",
             "hopkit.pipelines.generation.no_retrieval.NoRGenerationPipelineConfig",
             "hopkit.pipelines.generation.ircot.IRCoTGenerationPipelineConfig"]
RETRIEVAL = ["hopkit.pipelines.retrieval.bm25.BM25RetrievalPipeline",
             "hopkit.pipelines.retrieval.dense.DenseRetrievalPipeline",
             "hopkit.pipelines.retrieval.hybrid.HybridRetrievalPipeline"]
# No LlamaCppLLM.load here: a valid draw would load a model (it is checked in test_config_values).
LLMS = ["hopkit.llm.fake.ScriptedLLM", "hopkit.llm.openai_compat.OpenAICompatibleLLM"]
FORBIDDEN = ["os.system", "builtins.exec", "subprocess.run", "shutil.rmtree", "hopkit.cli.main",
             "hopkit.config.load_yaml", "hopkit.config.os.system", "fuzz_spy.run", "fuzz_spy.Thing",
             "fuzz_spy.Thing.make", "hopkit.llm.llama_cpp.LlamaCppLLM.__init__"]
OPTION_NAMES = ["name", "llm", "dataset", "batch_size", "retrieval_pipeline_name", "k", "reader", "demonstrations",
                "k_per_step", "max_steps", "paragraph_budget", "stop_sequence", "reasoning_prompt_template",
                "qa_prompt_template", "top_k", "title_matching", "options", "k1", "b", "embedder", "rrf_k",
                "index_root", "script", "context_length", "base_url", "model", "endpoint", "timeout",
                "max_retries", "backoff", "api_key", "mode", "max_tokens", "instruction", "distractors",
                "family", "iirc", "title_count", "near_duplicate_threshold", "exclude_collected"]
WORDS = ["direct", "cot", "none", "hotpotqa", "musique", "codex", "flan_t5", "bm25", "smollm2", "http://h/v1",
         "chat", "Q: {query}\n{paragraphs}\nA:", "{query} {cot_history}", "answer is:", "", "${HOPKIT_UNSET_X}"]

scalars = (st.none() | st.booleans() | st.integers(-3, 20) | st.integers() | st.floats(allow_nan=True)
           | st.sampled_from(WORDS) | st.text(max_size=12))
keys = st.sampled_from(OPTION_NAMES) | st.text(max_size=8) | st.integers(-2, 2)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(keys, inner, max_size=4), max_leaves=10)
targets = (st.sampled_from(PIPELINES + RETRIEVAL + LLMS + FORBIDDEN) | st.text(max_size=20) | st.integers()
           | st.none())
kinds = st.sampled_from([None, "pipelines", "retrieval", "llm"])
# Mostly a target with its own kind (so the options are what gets fuzzed), else anything with any kind.
targets_and_kinds = st.one_of(
    st.tuples(st.sampled_from(PIPELINES), st.sampled_from([None, "pipelines"])),
    st.tuples(st.sampled_from(RETRIEVAL), st.sampled_from([None, "retrieval"])),
    st.tuples(st.sampled_from(LLMS), st.sampled_from([None, "llm"])),
    st.tuples(targets, kinds))


@pytest.fixture(scope="module")
def spy() -> Iterator[types.ModuleType]:
    """A module whose every callable records its call; nothing in it may ever run."""
    module = types.ModuleType("fuzz_spy")
    module.calls = []  # type: ignore[attr-defined]

    def run(*args: Any, **kwargs: Any) -> None:
        module.calls.append((args, kwargs))  # type: ignore[attr-defined]

    class Thing:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            run(*args, **kwargs)

        @classmethod
        def make(cls, *args: Any, **kwargs: Any) -> None:
            run(*args, **kwargs)

    module.run, module.Thing = run, Thing  # type: ignore[attr-defined]
    sys.modules["fuzz_spy"] = module
    yield module
    del sys.modules["fuzz_spy"]


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def all_keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return {str(k) for k in value} | {k for v in value.values() for k in all_keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in all_keys(v)}
    return set()


def assert_names_file_and_field(error: ConfigError, path: Path, spec: dict[Any, Any]) -> None:
    message = str(error)
    assert message.startswith(str(path)), message
    assert "\n" not in message, message
    named = ["'_target_'", "field ", "option "] + [repr(k) for k in all_keys(spec)] + [repr(k) for k in spec]
    assert any(word in message for word in named), message


def check_load(path: Path, spec: dict[Any, Any], kind: str | None, spy: types.ModuleType) -> None:
    path.write_text(yaml.safe_dump(spec, allow_unicode=True), encoding="utf-8")
    wants_session = kind == "retrieval" or (kind is None and spec.get("_target_") in RETRIEVAL)
    injected = {"session_factory": None} if wants_session else {}
    # (builtins.exec is not patched: the import machinery itself calls it)
    with mock.patch("os.system") as system, mock.patch("subprocess.run") as run, \
            mock.patch("shutil.rmtree") as rmtree:
        try:
            instantiate(load_yaml(path), str(path), kind=kind, **injected)
        except ConfigError as error:
            assert_names_file_and_field(error, path, spec)
    for patched in (system, run, rmtree):
        patched.assert_not_called()
    assert spy.calls == []


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target_and_kind=targets_and_kinds, options=st.dictionaries(keys, values, max_size=6))
def test_any_mapping_builds_or_names_file_and_field(target_and_kind: tuple[Any, str | None],
                                                     options: dict[Any, Any], folder: Path,
                                                     spy: types.ModuleType) -> None:
    target, kind = target_and_kind
    check_load(folder / "fuzz.yaml", {"_target_": target, **options}, kind, spy)


def valid_ish(name: str) -> st.SearchStrategy[Any]:
    """Values close to what the option takes, so the fuzz also reaches the nested checks."""
    numbers = st.integers(-2, 30) | st.floats(-1, 200) | st.booleans() | st.just(math.inf)
    return numbers | st.sampled_from(WORDS) | st.dictionaries(st.sampled_from(OPTION_NAMES), numbers
                                                              | st.sampled_from(WORDS), max_size=3)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target=st.sampled_from(PIPELINES),
       options=st.lists(st.sampled_from(OPTION_NAMES[:17]), unique=True, max_size=5).flatmap(
           lambda names: st.fixed_dictionaries({n: valid_ish(n) for n in names})))
def test_pipeline_options_near_valid_values(target: str, options: dict[str, Any], folder: Path,
                                            spy: types.ModuleType) -> None:
    check_load(folder / "near.yaml", {"_target_": target, "name": "run", **options}, "pipelines", spy)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=200) | st.text(max_size=200).map(lambda t: t.encode("utf-8")))
def test_any_file_content_reads_or_names_the_file(data: bytes, folder: Path) -> None:
    path = folder / "raw.yaml"
    path.write_bytes(data)
    try:
        loaded = load_yaml(path)
    except ConfigError as error:
        assert str(error).startswith(str(path)) and "\n" not in str(error)
    else:
        assert isinstance(loaded, dict)


def test_the_fuzzed_forbidden_targets_exist(spy: types.ModuleType) -> None:
    """The forbidden names above are real callables, so refusing them means something."""
    for target in FORBIDDEN:
        assert callable(pkgutil.resolve_name(target)), target
    assert config_module.TARGET_KINDS.keys() == {"pipelines", "retrieval", "llm"}

"""Config values are type- and range-checked, with the file and field named (issue items 8 and 9)."""

import os
from pathlib import Path
from typing import Any

import pytest

from hopkit.pipelines.configs import instantiate_pipeline_config
from hopkit.cli import main
from hopkit.config import instantiate, load_yaml
from hopkit.errors import ConfigError

pytestmark = pytest.mark.unit

ONER = "hopkit.pipelines.generation.one_step.OneRGenerationPipelineConfig"
NOR = "hopkit.pipelines.generation.no_retrieval.NoRGenerationPipelineConfig"
IRCOT = "hopkit.pipelines.generation.ircot.IRCoTGenerationPipelineConfig"


def write(tmp_path: Path, text: str, name: str = "x.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def build(tmp_path: Path, text: str) -> Any:
    path = write(tmp_path, text)
    return instantiate_pipeline_config(load_yaml(path), str(path))


@pytest.mark.parametrize(("target", "line", "field", "expected"), [
    (ONER, "k: 2.5", "k", "an integer >= 1, got 2.5"),
    (ONER, "k: five", "k", "an integer >= 1, got 'five'"),
    (ONER, "k: true", "k", "an integer >= 1, got True"),
    (ONER, "k: 0", "k", "an integer >= 1, got 0"),
    (ONER, "batch_size: -5", "batch_size", "an integer >= 1, got -5"),
    (ONER, "reader: 5", "reader", "got 5"),
    (ONER, "name: [a, b]", "name", "a non-empty string"),
    (ONER, "llm: 3", "llm", "a non-empty string"),
    (ONER, "dataset: {a: 1}", "dataset", "a string or null"),
    (IRCOT, "max_steps: eight", "max_steps", "an integer >= 1, got 'eight'"),
    (IRCOT, "k_per_step: 1.0", "k_per_step", "an integer >= 1, got 1.0"),
    (IRCOT, "paragraph_budget: 0", "paragraph_budget", "an integer >= 1, got 0"),
    (IRCOT, "top_k: -1", "top_k", "an integer >= 1 or null, got -1"),
    (IRCOT, "title_matching: maybe", "title_matching", "true or false or null, got 'maybe'"),
    (IRCOT, "stop_sequence: 7", "stop_sequence", "a string, got 7"),
    (IRCOT, "reasoning_prompt_template: [1]", "reasoning_prompt_template", "a string or null"),
    (IRCOT, "iirc: 3", "iirc", "an IIRCConfig or a mapping, got 3"),
    (IRCOT, "reader: verbose", "reader", "one of 'cot', 'direct', 'none', got 'verbose'"),
    (NOR, "batch_size: .nan", "batch_size", "an integer >= 1"),
])
def test_wrong_type_or_range_names_file_and_field(tmp_path: Path, target: str, line: str, field: str,
                                                  expected: str) -> None:
    path = write(tmp_path, f"_target_: {target}\nname: run\n{line}\n")
    with pytest.raises(ConfigError) as error:
        instantiate_pipeline_config(load_yaml(path), str(path))
    message = str(error.value)
    assert message.startswith(f"{path}: field '{field}': expected "), message
    assert expected in message


@pytest.mark.parametrize(("text", "pattern"), [
    ("reader_context: elsewhere", r"'reader_context'.*one of 'own', 'reasoning'"),
    ("max_paragraph_words: 0.5", r"'max_paragraph_words'.*an integer >= 1"),
    ("near_duplicate_threshold: 101", r"'near_duplicate_threshold'.*<= 100"),
    ("exclude_collected: 1", r"'exclude_collected'.*true or false"),
    ("iirc: {title_count: two}", r"option 'iirc'.*'title_count'.*an integer >= 1"),
    ("iirc: {title_cont: 2}", r"option 'iirc'.*unknown option.*title_cont"),
    ("colour: red", r"field 'colour'.*unknown option"),
    ("demonstrations: {dataset: hotpotqa, distractors: 9}", r"'distractors'.*<= 3"),
    ("demonstrations: {dataset: nq}", r"'dataset'.*hotpotqa"),
    ("demonstrations: {dataset: hotpotqa, family: gpt}", r"'family'.*'codex', 'flan_t5'"),
    ("demonstrations: hotpotqa", r"'demonstrations'.*a mapping"),
    ("reasoning_prompt_template: 'no placeholders'", r"reasoning_prompt_template.*\{query\}"),
])
def test_nested_ircot_options_are_checked_when_the_file_is_read(tmp_path: Path, text: str, pattern: str) -> None:
    path = write(tmp_path, f"_target_: {IRCOT}\nname: run\n{text}\n")
    with pytest.raises(ConfigError, match=pattern) as error:
        instantiate_pipeline_config(load_yaml(path), str(path))
    assert str(error.value).startswith(f"{path}: ")


@pytest.mark.parametrize(("text", "pattern"), [
    ("reader: {mode: cot, max_tokens: many}", r"'max_tokens'.*an integer >= 1"),
    ("reader: {mode: cot, instruction: 4}", r"'instruction'.*a string or null"),
    ("reader: {mode: loud}", r"'mode'.*one of 'direct', 'cot'"),
    ("reader: [cot]", r"field 'reader'"),
])
def test_reader_option_is_checked_when_the_file_is_read(tmp_path: Path, text: str, pattern: str) -> None:
    path = write(tmp_path, f"_target_: {ONER}\nname: run\n{text}\n")
    with pytest.raises(ConfigError, match=pattern) as error:
        instantiate_pipeline_config(load_yaml(path), str(path))
    assert str(error.value).startswith(f"{path}: ")


def test_unknown_and_missing_options_name_the_field(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"x.yaml: field 'kk': unknown option.*known: .*batch_size"):
        build(tmp_path, f"_target_: {ONER}\nname: run\nkk: 3\n")
    with pytest.raises(ConfigError, match=r"x.yaml: field 'name' is required"):
        build(tmp_path, f"_target_: {ONER}\nk: 3\n")
    with pytest.raises(ConfigError, match=r"x.yaml: field 1: option names must be strings"):
        build(tmp_path, f"_target_: {ONER}\nname: run\n1: 3\n")


def test_llm_and_retrieval_options_are_checked_before_anything_loads(tmp_path: Path) -> None:
    from unittest import mock

    path = write(tmp_path, "_target_: hopkit.llm.llama_cpp.LlamaCppLLM.load\nn_ctx: big\n")
    with mock.patch("llama_cpp.Llama") as llama, \
            pytest.raises(ConfigError, match=r"x.yaml: field 'n_ctx': expected an integer >= 0, got 'big'"):
        instantiate(load_yaml(path), str(path), kind="llm")
    llama.assert_not_called()
    path = write(tmp_path, "_target_: hopkit.llm.openai_compat.OpenAICompatibleLLM\nbase_url: http://x\n"
                           "model: m\ntimeout: 0\n")
    with pytest.raises(ConfigError, match=r"field 'timeout': expected a number > 0, got 0"):
        instantiate(load_yaml(path), str(path), kind="llm")
    path = write(tmp_path, "_target_: hopkit.pipelines.retrieval.bm25.BM25RetrievalPipeline\nb: high\n")
    with pytest.raises(ConfigError, match=r"x.yaml: field 'b': expected a number >= 0 and <= 1, got 'high'"):
        instantiate(load_yaml(path), str(path), kind="retrieval", session_factory=None)
    path = write(tmp_path, "_target_: hopkit.pipelines.retrieval.bm25.BM25RetrievalPipeline\n"
                           "session_factory: sqlite://\n")
    with pytest.raises(ConfigError, match=r"field 'session_factory' is set by hopkit"):
        instantiate(load_yaml(path), str(path), kind="retrieval", session_factory=None)


def test_good_values_still_build(tmp_path: Path) -> None:
    config = build(tmp_path, f"_target_: {IRCOT}\nname: run\nk_per_step: 2\ntop_k: 3\ntitle_matching: null\n"
                             "demonstrations: {dataset: musique, distractors: 1, family: flan_t5}\n"
                             "reader: cot\nnear_duplicate_threshold: 85\niirc: {title_count: 2}\n")
    assert config.top_k == 3 and config.reader == "cot"
    pipeline = config.build(None)
    assert (pipeline.config.k_per_step, pipeline.config.near_duplicate_threshold) == (3, 85)
    assert pipeline.config.iirc.title_count == 2
    config = build(tmp_path, f"_target_: {ONER}\nname: run\nk: 15\nreader: {{mode: cot, max_tokens: 50}}\n")
    assert config.k == 15


def test_python_constructors_check_their_options_too() -> None:
    from hopkit.methods.ircot.method import IRCoTConfig
    from hopkit.methods.oner.method import OneRConfig
    from hopkit.methods.reader import ReaderConfig
    from hopkit.pipelines.generation.ircot import IRCoTGenerationPipeline
    from hopkit.pipelines.generation.one_step import OneRGenerationPipeline
    from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline

    retrieval = BM25RetrievalPipeline(None)  # type: ignore[arg-type]
    for bad in (2.5, "5", True, 0):
        with pytest.raises(ConfigError, match="'k_per_step'"):
            IRCoTGenerationPipeline(None, "x", "smollm2", retrieval, k_per_step=bad)  # type: ignore[arg-type]
        with pytest.raises(ConfigError, match="'k'"):
            OneRConfig(k=bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="'batch_size'"):
        OneRGenerationPipeline(None, "x", "smollm2", retrieval, batch_size=-5)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="'max_tokens'"):
        ReaderConfig(max_tokens="many")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="'max_steps'"):
        IRCoTConfig(max_steps=None)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="'k1'"):
        BM25RetrievalPipeline(None, k1="x")  # type: ignore[arg-type]


# Issue item 9: unreadable config files give one line, not a traceback.

def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["run", *args, "--quiet"])
    return code, capsys.readouterr().err


def test_cli_run_on_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run_cli(capsys, str(tmp_path))
    assert code == 2
    assert err == f"hopkit: error: {tmp_path}: is a folder, not a config file\n"


def test_cli_run_on_a_non_utf8_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("_target_: x\nname: caf\xe9\n".encode("latin-1"))
    code, err = run_cli(capsys, str(path))
    assert code == 2
    assert err.startswith(f"hopkit: error: {path}: not UTF-8 text (byte 0xe9 at position ")
    assert err.count("\n") == 1


def test_cli_run_on_an_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from unittest import mock

    path = write(tmp_path, f"_target_: {ONER}\nname: x\n")
    denied = PermissionError(13, "Permission denied", str(path))
    if os.name == "posix" and os.geteuid() != 0:
        path.chmod(0)
        patch: Any = mock.patch.object(Path, "owner")  # a no-op: the file really cannot be read
    else:  # root reads any file: simulate the refusal
        patch = mock.patch.object(Path, "read_bytes", side_effect=denied)
    try:
        with patch:
            code, err = run_cli(capsys, str(path))
    finally:
        path.chmod(0o644)
    assert code == 2
    assert err.startswith(f"hopkit: error: {path}: cannot read the config file (") and err.count("\n") == 1


def test_cli_run_refuses_a_command_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from unittest import mock

    path = write(tmp_path, "_target_: os.system\ncommand: echo pwned\n")
    with mock.patch("os.system") as system:
        code, err = run_cli(capsys, str(path))
    system.assert_not_called()
    assert code == 2 and err.startswith(f"hopkit: error: {path}: field '_target_': ") and err.count("\n") == 1


def test_cli_run_names_a_bad_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, f"_target_: {ONER}\nname: x\nk: 2.5\n")
    code, err = run_cli(capsys, str(path))
    assert code == 2
    assert err == f"hopkit: error: {path}: field 'k': expected an integer >= 1, got 2.5\n"


def option_names(config_class: type) -> set[str]:
    """The fields of a config dataclass and of the config dataclasses its fields take, by name."""
    import dataclasses

    from hopkit.options import parameter_types
    from hopkit.methods.method_config import config_dataclass

    names: set[str] = set()
    for field, hint in parameter_types(config_class).items():
        names.add(field)
        nested = config_dataclass(hint)
        if nested is not None and nested is not config_class:
            names |= option_names(nested)
    return names if dataclasses.is_dataclass(config_class) else set()


def test_docs_list_every_option() -> None:
    """docs/configs.md has a row for every option a config file can set, of every method hopkit ships
    (from the registry) and of the LLMs and retrievers (a stale doc is a bug)."""
    import inspect

    from hopkit.llm.llama_cpp import LlamaCppLLM
    from hopkit.llm.openai_compat import OpenAICompatibleLLM
    from hopkit.llm.transformers_backend import TransformersLLM
    from hopkit.methods.registry import BUILT_IN, entries
    from hopkit.pipelines.generation.registered import method_pipeline_config
    from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
    from hopkit.pipelines.retrieval.dense import DenseRetrievalPipeline
    from hopkit.pipelines.retrieval.hybrid import HybridRetrievalPipeline
    from hopkit.pipelines.retrieval.prebuilt import PrebuiltIndexPipeline
    from hopkit.pipelines.retrieval.remote import RemoteRetrievalPipeline

    docs = (Path(__file__).resolve().parents[2] / "docs" / "configs.md").read_text(encoding="utf-8")
    shipped = [name for name, entry in entries().items() if entry.build.__module__ in BUILT_IN]
    assert len(shipped) == len(BUILT_IN)  # every built-in package's entry, found by its build function
    names: set[str] = set()
    for name in shipped:
        names |= option_names(entries()[name].options) | option_names(method_pipeline_config(name))
    for target in (BM25RetrievalPipeline, DenseRetrievalPipeline, HybridRetrievalPipeline, RemoteRetrievalPipeline,
                   PrebuiltIndexPipeline, LlamaCppLLM.load,
                   OpenAICompatibleLLM, TransformersLLM.load):
        names |= set(inspect.signature(target).parameters) - {"session_factory"}
    missing = sorted(name for name in names if f"`{name}`" not in docs)
    assert not missing, f"docs/configs.md does not document {missing}"

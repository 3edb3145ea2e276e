from pathlib import Path

import pytest

from hopkit.config import instantiate, load_named, load_yaml, named_config_path
from hopkit.errors import ConfigError, UnknownNameError
from hopkit.methods.method_config import method_config
from hopkit.methods.oner.method import OneRConfig
from hopkit.pipelines.generation.one_step import OneRGenerationPipelineConfig

pytestmark = pytest.mark.unit


def test_yaml_with_environment_variables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOPKIT_TEST_K", "7")
    path = tmp_path / "c.yaml"
    path.write_text("k: ${HOPKIT_TEST_K}\nmodel: ${HOPKIT_UNSET_VAR:-default.gguf}\n")
    assert load_yaml(path) == {"k": "7", "model": "default.gguf"}


def test_unset_variable_without_default_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("model: ${HOPKIT_SURELY_UNSET}\n")
    with pytest.raises(ConfigError, match=r"c.yaml: environment variable HOPKIT_SURELY_UNSET"):
        load_yaml(path)


def test_invalid_yaml_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\nk: [1, 2\n")
    with pytest.raises(ConfigError, match=r"bad.yaml:\d+: not valid YAML"):
        load_yaml(path)


def test_missing_file() -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_yaml("/nonexistent/x.yaml")


def test_instantiate_builds_the_target_with_its_options() -> None:
    config = instantiate({"_target_": "hopkit.pipelines.generation.one_step.OneRGenerationPipelineConfig",
                          "name": "oner", "k": 9, "reader": "cot"}, "inline")
    assert isinstance(config, OneRGenerationPipelineConfig) and config.k == 9


def test_instantiate_reports_unknown_option_and_bad_target() -> None:
    with pytest.raises(ConfigError, match="inline: .*unexpected keyword argument 'kk'"):
        instantiate({"_target_": "hopkit.pipelines.generation.one_step.OneRGenerationPipelineConfig",
                     "name": "x", "kk": 1}, "inline")
    with pytest.raises(ConfigError, match="cannot import 'hopkit.nope.Thing'"):
        instantiate({"_target_": "hopkit.nope.Thing"}, "inline")
    with pytest.raises(ConfigError, match="missing field '_target_'"):
        instantiate({"name": "x"}, "inline")


def test_named_llm_configs_ship_with_the_package() -> None:
    assert named_config_path("llm", "smollm2").name == "smollm2.yaml"
    with pytest.raises(UnknownNameError, match="smollm2"):
        named_config_path("llm", "no-such-model")


def test_local_configs_folder_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "configs" / "llm").mkdir(parents=True)
    (tmp_path / "configs" / "llm" / "mine.yaml").write_text(
        "_target_: hopkit.llm.fake.ScriptedLLM\nscript: ['hello']\n")
    monkeypatch.chdir(tmp_path)
    llm = load_named("llm", "mine")
    assert llm.complete("x").text == "hello"


def test_reader_option_forms() -> None:
    assert method_config(OneRConfig, {"reader": "cot"}, "OneR").reader.mode == "cot"
    assert method_config(OneRConfig, {"reader": {"mode": "direct", "max_tokens": 20}}, "OneR").reader.max_tokens == 20
    with pytest.raises(ConfigError, match=r"OneR: option 'reader'.*'mode'.*one of 'direct', 'cot'.*'verbose'"):
        method_config(OneRConfig, {"reader": "verbose"}, "OneR")
    with pytest.raises(ConfigError, match=r"OneR: option 'reader': unknown option\(s\) \['mood'\]"):
        method_config(OneRConfig, {"reader": {"mood": "cot"}}, "OneR")


def test_an_llm_config_can_turn_on_the_disk_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hopkit.config import load_llm
    from hopkit.llm.cache import CachedLLM
    from hopkit.pipelines.base import supports_concurrency

    (tmp_path / "configs" / "llm").mkdir(parents=True)
    (tmp_path / "configs" / "llm" / "mine.yaml").write_text(
        "_target_: hopkit.llm.fake.ScriptedLLM\nscript: ['hello']\ncache: true\n")
    (tmp_path / "configs" / "llm" / "bad.yaml").write_text(
        "_target_: hopkit.llm.fake.ScriptedLLM\nscript: ['x']\ncache: 'often'\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    llm = load_llm("mine")
    assert isinstance(llm, CachedLLM)
    assert llm.complete("x").text == "hello" and llm.complete("x").from_cache
    assert supports_concurrency(llm) is False  # the scripted model under the cache answers in order
    with pytest.raises(ConfigError, match="bad.yaml: field 'cache'"):
        load_llm("bad")

"""What a config's ``_target_`` may name, checked before anything is called (issue item 1)."""

import sys
import types
from pathlib import Path
from unittest import mock

import pytest

from hopkit.pipelines.configs import instantiate_pipeline_config
from hopkit import config as config_module
from hopkit.config import allow_targets, instantiate, load_llm, load_named, load_yaml
from hopkit.errors import ConfigError
from hopkit.pipelines.generation.config import GenerationPipelineConfig
from hopkit.pipelines.generation.one_step import OneRGenerationPipelineConfig
from hopkit.pipelines.retrieval.base import RetrievalPipeline
from hopkit.pipelines.experiments import experiment_spec
from hopkit.pipelines.generation.registered import with_method_target

pytestmark = pytest.mark.unit

PACKAGED = Path(config_module.__file__).resolve().parent / "configs"


@pytest.fixture()
def no_user_targets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config_module, "_USER_TARGETS", set())
    monkeypatch.delenv("HOPKIT_ALLOWED_TARGETS", raising=False)


@pytest.fixture()
def spy_module(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """A user module: a plain function, an unrelated class, and a subclass of each kind's base."""
    module = types.ModuleType("hopkit_test_user_targets")
    module.calls = []  # type: ignore[attr-defined]

    def shout(**options: object) -> str:
        module.calls.append(options)  # type: ignore[attr-defined]
        return "called"

    class Unrelated:
        def __init__(self, **options: object) -> None:
            module.calls.append(options)  # type: ignore[attr-defined]

    class MyPipelineConfig(GenerationPipelineConfig):
        def build(self, session_factory: object) -> object:
            return session_factory

    class MyRetrieval(RetrievalPipeline):
        pass

    class MyLLM:
        model_id = "mine"
        context_length = 100

        def __init__(self, reply: str = "hi") -> None:
            self.reply = reply

        def complete(self, prompt: str, **_: object) -> object:
            return self.reply

    for obj in (shout, Unrelated, MyPipelineConfig, MyRetrieval, MyLLM):
        obj.__module__ = module.__name__
        obj.__qualname__ = obj.__name__
        setattr(module, obj.__name__, obj)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    return module


@pytest.mark.usefixtures("no_user_targets")
def test_os_system_is_refused_before_it_runs(tmp_path: Path) -> None:
    path = tmp_path / "evil.yaml"
    path.write_text("_target_: os.system\ncommand: touch pwned\n")
    with mock.patch("os.system") as system, pytest.raises(ConfigError) as error:
        instantiate_pipeline_config(load_yaml(path), str(path))
    system.assert_not_called()
    assert str(error.value).startswith(f"{path}: field '_target_'")
    assert "os.system" in str(error.value) and "docs/configs.md" in str(error.value)


@pytest.mark.usefixtures("no_user_targets")
@pytest.mark.parametrize("target", ["builtins.eval", "subprocess.run", "shutil.rmtree", "os.remove",
                                    "hopkit.cli.main", "hopkit.config.load_yaml", "pip.__main__.x",
                                    "hopkit.store.store.Store"])
def test_functions_and_foreign_classes_are_refused(target: str, spy_module: types.ModuleType) -> None:
    with pytest.raises(ConfigError, match=r"inline: field '_target_'"):
        instantiate_pipeline_config({"_target_": target, "name": "x"}, "inline")


@pytest.mark.usefixtures("no_user_targets")
def test_a_named_llm_in_the_current_folder_cannot_run_a_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spy_module: types.ModuleType) -> None:
    (tmp_path / "configs" / "llm").mkdir(parents=True)
    (tmp_path / "configs" / "llm" / "smollm2.yaml").write_text("_target_: os.system\ncommand: touch pwned\n")
    (tmp_path / "configs" / "llm" / "spy.yaml").write_text("_target_: hopkit_test_user_targets.shout\n")
    monkeypatch.chdir(tmp_path)
    with mock.patch("os.system") as system, pytest.raises(ConfigError, match=r"smollm2.yaml: field '_target_'"):
        load_llm("smollm2")
    system.assert_not_called()
    with pytest.raises(ConfigError, match=r"spy.yaml: field '_target_'"):
        load_llm("spy")
    assert spy_module.calls == []


@pytest.mark.usefixtures("no_user_targets")
def test_each_kind_takes_only_its_own_classes(spy_module: types.ModuleType) -> None:
    # an LLM backend is not a pipeline config: refused before the model would be loaded
    with mock.patch("hopkit.llm.llama_cpp.LlamaCppLLM.load") as load, \
            pytest.raises(ConfigError, match="field '_target_'.*generation pipeline config"):
        instantiate_pipeline_config({"_target_": "hopkit.llm.llama_cpp.LlamaCppLLM.load"}, "inline")
    load.assert_not_called()
    with pytest.raises(ConfigError, match="field '_target_'"):
        instantiate({"_target_": "hopkit.pipelines.generation.one_step.OneRGenerationPipelineConfig", "name": "x"},
                    "inline", kind="llm")
    with pytest.raises(ConfigError, match="field '_target_'"):
        instantiate({"_target_": "hopkit_test_user_targets.Unrelated"}, "inline", kind="retrieval")
    assert spy_module.calls == []


@pytest.mark.usefixtures("no_user_targets")
def test_user_subclasses_of_the_kind_base_are_allowed(spy_module: types.ModuleType) -> None:
    built = instantiate_pipeline_config({"_target_": "hopkit_test_user_targets.MyPipelineConfig", "name": "mine"}, "inline")
    assert isinstance(built, spy_module.MyPipelineConfig)
    retrieval = instantiate({"_target_": "hopkit_test_user_targets.MyRetrieval", "name": "r"}, "inline",
                            kind="retrieval", session_factory=None)
    assert isinstance(retrieval, RetrievalPipeline)


@pytest.mark.usefixtures("no_user_targets")
def test_listed_targets_are_allowed(spy_module: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = {"_target_": "hopkit_test_user_targets.MyLLM", "reply": "yo"}
    with pytest.raises(ConfigError, match="field '_target_'.*allow_targets"):
        instantiate(spec, "inline", kind="llm")
    allow_targets(spy_module.MyLLM)
    assert instantiate(spec, "inline", kind="llm").reply == "yo"
    monkeypatch.setattr(config_module, "_USER_TARGETS", set())
    monkeypatch.setenv("HOPKIT_ALLOWED_TARGETS", "hopkit_test_user_targets.MyLLM, other.Thing")
    assert instantiate(spec, "inline", kind="llm").reply == "yo"


@pytest.mark.usefixtures("no_user_targets")
def test_a_listed_target_must_still_build_the_right_kind(spy_module: types.ModuleType) -> None:
    allow_targets("hopkit_test_user_targets.shout")
    with pytest.raises(ConfigError, match="inline: field '_target_'.*built a str"):
        instantiate({"_target_": "hopkit_test_user_targets.shout"}, "inline", kind="llm")


@pytest.mark.usefixtures("no_user_targets")
@pytest.mark.parametrize("target", [5, ["hopkit"], "not a name", "", "hopkit..x", None])
def test_target_must_be_a_dotted_name(target: object) -> None:
    with pytest.raises(ConfigError, match=r"inline: field '_target_'"):
        instantiate({"_target_": target}, "inline")


@pytest.mark.parametrize("path", sorted(PACKAGED.glob("*/*.yaml")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_packaged_config_names_an_allowed_target(path: Path, no_user_targets: None) -> None:
    kind = path.parent.name
    spec = load_yaml(path)
    spec.pop("cache", None)
    if "experiment" in spec:  # a declared experiment: its settings on one of the datasets it runs on
        spec = experiment_spec({**spec, "dataset": "hotpotqa"}, str(path))
        spec = with_method_target(spec, str(path))
    target = config_module.resolve_target(spec["_target_"], str(path), kind)
    assert callable(target)
    if kind == "pipelines":
        assert isinstance(instantiate(spec, str(path), kind=kind), GenerationPipelineConfig)
    if kind == "retrieval":
        assert isinstance(load_named("retrieval", path.stem, session_factory=None), RetrievalPipeline)


def test_the_old_generic_call_still_builds_pipeline_configs() -> None:
    built = instantiate({"_target_": "hopkit.pipelines.generation.one_step.OneRGenerationPipelineConfig", "name": "o"},
                        "inline")
    assert isinstance(built, OneRGenerationPipelineConfig)


@pytest.mark.parametrize("old, new", [("one_step.OneRPipelineConfig", "one_step.OneRGenerationPipelineConfig"),
                                      ("no_retrieval.NoRPipelineConfig", "no_retrieval.NoRGenerationPipelineConfig")])
def test_a_config_class_renamed_since_the_last_release_still_loads_with_a_warning(old: str, new: str) -> None:
    from hopkit.config import resolve_target

    with pytest.warns(FutureWarning, match=f"was renamed hopkit.pipelines.generation.{new}"):
        target = resolve_target(f"hopkit.pipelines.generation.{old}", "old.yaml", kind="pipelines")
    assert target is resolve_target(f"hopkit.pipelines.generation.{new}", "new.yaml", kind="pipelines")

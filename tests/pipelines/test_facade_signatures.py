"""Every facade shows every option of its method by name, type and default (issue 30: they showed **options)."""

from __future__ import annotations

import dataclasses
import inspect
import pydoc

import pytest

from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.ircot.method import IRCoTConfig
from hopkit.methods.migres.method import MIGRESConfig
from hopkit.methods.nor.method import NoRConfig
from hopkit.methods.oner.method import OneRConfig
from hopkit.methods.searchain.method import SearChainConfig
from hopkit.pipelines.generation.ircot import IRCoTGenerationPipeline
from hopkit.pipelines.generation.migres import MIGRESGenerationPipeline
from hopkit.pipelines.generation.no_retrieval import NoRGenerationPipeline
from hopkit.pipelines.generation.one_step import OneRGenerationPipeline
from hopkit.pipelines.generation.searchain import SearChainGenerationPipeline

pytestmark = pytest.mark.unit

FACADES = [(NoRGenerationPipeline, NoRConfig), (OneRGenerationPipeline, OneRConfig),
           (IRCoTGenerationPipeline, IRCoTConfig), (MIGRESGenerationPipeline, MIGRESConfig),
           (SearChainGenerationPipeline, SearChainConfig)]


@pytest.mark.parametrize("facade, config", FACADES, ids=lambda item: getattr(item, "__name__", ""))
def test_the_signature_names_every_option_with_its_default(facade: type, config: type) -> None:
    parameters = inspect.signature(facade).parameters
    assert all(p.kind is not p.VAR_KEYWORD for p in parameters.values())
    defaults = config()
    for item in dataclasses.fields(config):
        shown = parameters[item.name]
        assert shown.kind is shown.KEYWORD_ONLY and shown.annotation is not inspect.Parameter.empty
        if item.name not in ("top_k",):  # IRCoT's top_k is the facade's alias, None by default
            assert shown.default == getattr(defaults, item.name), item.name
    assert f"{dataclasses.fields(config)[0].name}:" in pydoc.render_doc(facade)


def test_the_constructor_still_checks_what_it_is_given() -> None:
    with pytest.raises(ConfigError, match="max_step"):
        MIGRESGenerationPipeline(None, "m", ScriptedLLM([]), None, max_step=3)  # type: ignore[arg-type]

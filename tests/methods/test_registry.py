"""What every registered method gets from its one entry, checked over the registry.

Parametrised by :func:`hopkit.methods.registry.entries`, so a method registered by an
installed package's entry point is checked too (the toy-method test runs this file so).
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from dataclasses import dataclass

import pytest

from hopkit.pipelines.configs import instantiate_pipeline_config
from hopkit.errors import ConfigError, UnknownNameError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.protocol import Method
from hopkit.methods.registry import MethodEntry, MethodParts, entries, method_entry
from hopkit.pipelines.generation.registered import method_pipeline, method_pipeline_config
from hopkit.report.html.pages import html_environment
from hopkit.report.html.renderers import renderers
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.records import Paragraph

pytestmark = pytest.mark.unit

PARAGRAPHS = (Paragraph(1, "Tarsk", "Tarsk is a port city."), Paragraph(2, "Ada Quill", "Ada Quill was born in Tarsk."))


@pytest.fixture(params=list(entries()))
def entry(request: pytest.FixtureRequest) -> MethodEntry:
    return entries()[str(request.param)]


def documented_fields(options: type) -> str:
    return "\n".join(inspect.getdoc(cls) or "" for cls in options.__mro__ if dataclasses.is_dataclass(cls))


def test_every_option_is_documented_in_its_options_class(entry: MethodEntry) -> None:
    docs = documented_fields(entry.options)
    missing = [f.name for f in dataclasses.fields(entry.options) if f"{f.name}:" not in docs]
    assert not missing, f"{entry.options.__name__}'s docstring does not describe {missing}"


def test_the_facade_shows_every_option_by_name_type_and_default(entry: MethodEntry) -> None:
    facade = method_pipeline(entry.name)
    parameters = inspect.signature(facade).parameters
    hints = typing.get_type_hints(entry.options)
    for item in dataclasses.fields(entry.options):
        if item.name == "top_k":  # SearChain's K is called top_k: the facade's own top_k sets it
            assert entry.top_k == "top_k"
            continue
        shown = parameters[item.name]
        assert shown.kind is inspect.Parameter.KEYWORD_ONLY and shown.annotation == hints[item.name]
        default = item.default if item.default is not dataclasses.MISSING else item.default_factory()  # type: ignore[misc]
        assert shown.default == default
    assert ("top_k" in parameters) == (entry.top_k is not None)
    assert ("retrieval_pipeline" in parameters) == entry.retrieves
    assert entry.title in (facade.__doc__ or "")


def test_the_yaml_config_takes_every_option_and_names_the_method(entry: MethodEntry) -> None:
    config_class = method_pipeline_config(entry.name)
    fields = {f.name for f in dataclasses.fields(config_class)}
    assert {f.name for f in dataclasses.fields(entry.options)} <= fields
    config = instantiate_pipeline_config({"method": entry.name, "name": "x"}, "test.yaml")
    assert isinstance(config, config_class)
    with pytest.raises(ConfigError, match="test.yaml: field 'method': no method named 'nope'"):
        instantiate_pipeline_config({"method": "nope", "name": "x"}, "test.yaml")


def test_top_k_sets_the_declared_option_or_is_refused(entry: MethodEntry) -> None:
    pipeline = method_pipeline(entry.name)(None, "x", ScriptedLLM([]), *([object()] if entry.retrieves else []))
    if entry.top_k is None:
        with pytest.raises(ConfigError, match=f"top_k \\(3\\) does not apply to {entry.title}"):
            pipeline.method_options(3)
    else:
        assert pipeline.method_options(3)[entry.top_k] == 3


def test_the_entry_builds_its_method_from_its_parts(entry: MethodEntry) -> None:
    retriever = BM25Retriever.build(PARAGRAPHS) if entry.retrieves else None
    # a model with every capability FLARE and DRAGIN need
    llm = ScriptedLLM([], token_scores=lambda prompt, text: [(text, 0.0)], entropies=0.5)
    method = entry.build(MethodParts(llm, retriever, entry.as_run(entry.options()), "toy",
                                     lambda: PARAGRAPHS))
    assert isinstance(method, Method) and method.name == entry.name


def test_the_report_draws_the_method_with_its_own_template(entry: MethodEntry) -> None:
    if entry.template is None:
        assert entry.name not in renderers()
        return
    template = html_environment().get_template(renderers()[entry.name])
    assert any(callable(getattr(template.module, kind, None))
               for kind in ("retrieve", "reason", "read", "extract", "scope"))


def test_an_unknown_method_is_named_with_the_known_ones() -> None:
    with pytest.raises(UnknownNameError, match="unknown method 'nope'; known: .*ircot.*migres"):
        method_entry("nope")
    assert method_entry("IRCoT") is entries()["ircot"]


def test_hopkits_own_methods_come_first_in_the_registry_order() -> None:
    assert list(entries())[:5] == ["nor", "oner", "ircot", "migres", "searchain"]


@dataclass(frozen=True)
class _Options:
    """Attributes:
        k: a number.
    """

    k: int = 1


@pytest.mark.parametrize("changes, message", [
    ({"name": "Toy"}, "expected lower-case letters"),
    ({"options": dict}, "options must be a dataclass"),
    ({"top_k": "n"}, "top_k names 'n', not an option of _Options"),
])
def test_a_malformed_entry_is_refused_when_declared(changes: dict[str, object], message: str) -> None:
    fields = {"name": "toy", "title": "Toy", "options": _Options, "build": lambda parts: None, "retrieves": True,
              **changes}
    with pytest.raises(ConfigError, match=message):
        MethodEntry(**fields)  # type: ignore[arg-type]

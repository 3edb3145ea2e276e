"""A method's options are declared once, as its config dataclass (``IRCoTConfig``...).

The facade takes them as keyword arguments (:func:`hopkit.methods.method_config.method_config`
builds the config from them) and the YAML config class is derived from the same dataclass
(:func:`yaml_config_class`), so an option is added, renamed or re-typed in one place.

A field whose type is itself a config dataclass (IRCoT's ``iirc``, the readers'
``reader``) is given as that dataclass or as a mapping of its fields; a dataclass with a
``from_option`` class method also takes that method's shorthand (``reader: cot``).
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
import typing
import warnings
from typing import Any, Callable, Mapping

from hopkit.errors import ConfigError
from hopkit.methods.method_config import config_dataclass, method_config
from hopkit.options import parameter_types

# Fields of every YAML pipeline config that are not passed on to the facade by name.
_YAML_ONLY = ("name", "llm", "retrieval_pipeline_name", "executor", "ray_address", "workers", "cpus_per_worker",
              "question_timeout", "ray_env")


def _yaml_hint(hint: Any) -> Any:
    """What a YAML file may give for a field of type ``hint``: a nested config may be a mapping."""
    inner = config_dataclass(hint)
    if inner is None:
        return hint
    if getattr(inner, "from_option", None) is not None:
        return typing.Union[hint, Mapping[str, Any], str]
    return typing.Union[hint, Mapping[str, Any]]


def yaml_config_class(name: str, base: type, config_class: type, pipeline: Callable[..., Any], *,
                      module: str, method: str, needs_retrieval: bool) -> type:
    """The YAML config of a method: ``base``'s fields (the pipeline's own) and ``config_class``'s.

    The facade's ``inspect.signature`` gets the same options (:func:`show_options`).

    Args:
        name: the class name (``IRCoTGenerationPipelineConfig``).
        base: a frozen dataclass deriving from ``GenerationPipelineConfig``.
        config_class: the method's options.
        pipeline: the facade, called as ``pipeline(session_factory, name, llm, [retrieval_pipeline],
            **every other field)``.
        module: the module the class is defined in (for ``_target_`` and pickling).
        method: the method's display name, for messages.
        needs_retrieval: whether the facade takes a retrieval pipeline (required then).
    """
    hints = parameter_types(config_class)
    own = {f.name for f in dataclasses.fields(base)}
    option_fields = [(f.name, _yaml_hint(hints[f.name]), _copy_default(f))
                     for f in dataclasses.fields(config_class) if f.name not in own]
    option_names = tuple(f[0] for f in option_fields)

    def __post_init__(self: Any) -> None:
        base.__post_init__(self)  # type: ignore[attr-defined]
        method_config(config_class, {n: getattr(self, n) for n in option_names}, "field")

    def build(self: Any, session_factory: Any) -> Any:
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in _YAML_ONLY}
        executor = self.executor_choice()
        if not needs_retrieval:
            return pipeline(session_factory, self.name, self.llm, executor=executor, **values)
        retrieval = self.retrieval_pipeline(session_factory)
        if retrieval is None:
            raise ConfigError(f"{method} config {self.name!r}: option 'retrieval_pipeline_name' is required")
        return pipeline(session_factory, self.name, self.llm, retrieval, executor=executor, **values)

    show_options(pipeline, config_class)  # the facade's signature names the same options
    fields_doc = ", ".join(f"``{n}``" for n in option_names)
    derived = dataclasses.make_dataclass(
        name, option_fields, bases=(base,), frozen=True,
        namespace={"__post_init__": __post_init__, "build": build, "__module__": module,
                   "__doc__": f"YAML config of {method}: the fields of {base.__name__} and the method's options "
                              f"({fields_doc}, declared by {config_class.__name__})."})
    return derived


def _copy_default(item: dataclasses.Field[Any]) -> dataclasses.Field[Any]:
    if item.default_factory is not dataclasses.MISSING:
        return dataclasses.field(default_factory=item.default_factory)
    return dataclasses.field(default=item.default)



def renamed_classes(module: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that serves classes under the names an earlier release gave them.

    A config file naming an old class as ``_target_`` keeps loading, with a ``FutureWarning``
    (shown to users by default) saying the name to write instead.

    Args:
        module: the module's ``__name__``.
        names: old name -> current name, in the same module.
    """
    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        current = names[name]
        warnings.warn(f"{module}.{name} was renamed {module}.{current} (hopkit 0.1): write that in "
                      "_target_; the old name will go", FutureWarning, stacklevel=2)
        return getattr(sys.modules[module], current)
    return __getattr__


def show_options(facade: Callable[..., Any], config_class: type) -> None:
    """Let ``inspect.signature``, ``help()`` and an editor's completion show a facade's method options.

    A facade takes its method's options as ``**options`` (they are checked by
    :func:`method_config`); this replaces that parameter, in the signature the facade's
    ``__init__`` reports, by one keyword-only parameter per field of ``config_class``, with
    its type and default. What the constructor accepts does not change.
    """
    init = facade.__init__  # type: ignore[misc]
    signature = inspect.signature(init)
    hints = typing.get_type_hints(config_class)
    kept = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
    taken = {p.name for p in kept}
    options = []
    for item in dataclasses.fields(config_class):
        if item.name in taken or not item.init:
            continue
        default = (item.default if item.default is not dataclasses.MISSING
                   else item.default_factory() if item.default_factory is not dataclasses.MISSING  # type: ignore[misc]
                   else inspect.Parameter.empty)
        options.append(inspect.Parameter(item.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                         annotation=hints.get(item.name, inspect.Parameter.empty)))
    init.__signature__ = signature.replace(parameters=[*kept, *options])

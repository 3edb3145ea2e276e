"""A method's model-call parts are named once, in its registry entry (issue 74): the labels its cost columns
show come from there, a part it did not declare is refused, and every label in the saved runs is declared."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from hopkit.errors import ConfigError, UsageError
from hopkit.methods.registry import MethodEntry, declares_label, entries
from hopkit.usage import ModelCallParts, track_usage

pytestmark = pytest.mark.unit

RUNS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "runs"


@pytest.mark.parametrize("name", list(entries()))
def test_every_registered_method_names_its_parts_under_its_own_name(name: str) -> None:
    parts = entries()[name].parts
    assert parts is not None, f"{name}'s registry entry declares no model-call parts"
    assert parts.method == name and all(label.startswith(f"{name}:") for label in parts.labels)


def test_a_part_opens_its_label_and_counts_the_seconds_spent_in_it() -> None:
    parts = ModelCallParts("toy", ("read", "look-ahead"))
    with track_usage() as usage:
        with parts.call("look-ahead"):
            pass
    assert list(usage.components) == ["toy:look-ahead"] and usage.components["toy:look-ahead"].calls == 1


def test_a_part_not_declared_is_refused_naming_the_parts() -> None:
    with pytest.raises(UsageError, match=r"toy has no model-call part 'raed'; its parts: read, check"):
        ModelCallParts("toy", ("read", "check")).call("raed")


@pytest.mark.parametrize("names", [(), ("read", "read"), ("a:b",), ("",), ("two words",)])
def test_parts_must_be_distinct_plain_names(names: tuple[str, ...]) -> None:
    with pytest.raises(UsageError):
        ModelCallParts("toy", names)


def test_an_entry_whose_parts_carry_another_name_is_refused() -> None:
    oner = entries()["oner"]
    with pytest.raises(ConfigError, match="label them 'toy'"):
        MethodEntry(name="toy", title="Toy", options=oner.options, build=oner.build, retrieves=True,
                    parts=ModelCallParts("oner", ("read",)))


def test_a_strategy_run_inside_another_method_keeps_its_declared_labels_under_the_owner() -> None:
    assert declares_label("adaptive-rag", "adaptive-rag:ircot:read")
    assert declares_label("adaptive-rag", "adaptive-rag:retrieval")
    assert declares_label("dragin", "judge:relevance") and declares_label("dragin", "retrieval")
    assert not declares_label("dragin", "dragin:qfs-typo")
    assert not declares_label("adaptive-rag", "adaptive-rag:ircot:typo")
    assert not declares_label("oner", "model")  # a call under no label at all


def saved_labels() -> dict[str, set[str]]:
    """The usage labels of every saved run's results, by method."""
    found: dict[str, set[str]] = {}
    for path in sorted(RUNS.glob("*.jsonl.gz")):
        method = None
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                if "run" in record:
                    method = record["run"]["method"]
                elif "result" in record and method is not None:
                    components = (record["result"].get("usage") or {}).get("components") or {}
                    found.setdefault(method, set()).update(components)
    return found


def test_every_label_in_the_saved_runs_is_one_its_method_declares() -> None:
    labels = saved_labels()
    assert labels, f"no saved runs under {RUNS}"
    # "model": the label of calls made under none, which runs saved before their method labelled its parts have
    undeclared = {method: sorted(label for label in found if label != "model" and not declares_label(method, label))
                  for method, found in labels.items()}
    assert not any(undeclared.values()), f"labels no registry entry declares: {undeclared}"

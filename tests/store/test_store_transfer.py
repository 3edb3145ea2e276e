"""Runs exported from one store and imported into another: same results, nothing lost."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from hopkit.errors import StoreError
from hopkit.records import Corpus, Paragraph
from hopkit.scoring_runs import score_run
from hopkit.store import DBConnection, QueryResult, RunSpec, Store
from hopkit.store.transfer import export_runs, import_runs
from hopkit.store.verdicts import StoredVerdict
from hopkit.usage import ComponentUsage, Usage

from .conftest import build_corpus

pytestmark = pytest.mark.unit


def _spec(name: str = "ircot-a", top_k: int = 4, dataset: str = "toy") -> RunSpec:
    return RunSpec(name=name, method="ircot", dataset=dataset, config={"top_k": top_k, "llm": "smollm2"})


def _result(query_id: str, prediction: str = "Paris", error: str | None = None) -> QueryResult:
    usage = Usage(2.5, {"model": ComponentUsage(3, 0.0, 3, 2.2, prompt_tokens=300, cached_prompt_tokens=200,
                                                completion_tokens=12),
                        "retrieval": ComponentUsage(2, 0.01)})
    return QueryResult(query_id=query_id, prediction=prediction, chunk_ids=(4, 1),
                       trace={"typed_trace": {"steps": [{"id": 0, "kind": "read", "output": "é ✓"}]}},
                       usage=usage, error=error)


def _fresh_store(tmp_path: Path, name: str, corpus: Corpus | None = None) -> Store:
    store = Store(DBConnection(f"sqlite:///{tmp_path / name}").get_session_factory())
    store.add_corpus(corpus or build_corpus())
    return store


def _filled(store: Store) -> str:
    run_id = store.ensure_run(_spec()).run_id
    store.record_result(run_id, _result("q0"))
    store.record_result(run_id, _result("q1", prediction="", error="LLMError: the server answered 500"))
    return run_id


def test_a_run_moves_between_stores_with_every_result(store: Store, make_corpus: Any, tmp_path: Path) -> None:
    store.add_corpus(make_corpus())
    run_id = _filled(store)
    path = tmp_path / "runs.jsonl.gz"
    assert export_runs(store, [run_id], path) == 2

    target = _fresh_store(tmp_path, "target.db")
    summary = import_runs(target, path)

    assert summary.runs == (run_id,) and summary.results_added == 2 and not summary.skipped
    assert target.run(run_id).name == "ircot-a" and dict(target.run(run_id).config) == dict(_spec().config)
    assert target.results(run_id) == store.results(run_id)


def test_same_results_give_the_same_bytes(tmp_path: Path) -> None:
    store = _fresh_store(tmp_path, "source.db")
    run_id = _filled(store)
    export_runs(store, [run_id], tmp_path / "a.jsonl.gz")
    export_runs(store, [run_id], tmp_path / "b.jsonl.gz")
    assert (tmp_path / "a.jsonl.gz").read_bytes() == (tmp_path / "b.jsonl.gz").read_bytes()
    assert not list(tmp_path.glob("*.partial"))


def test_import_keeps_answers_already_in_the_target_and_never_replaces_one_with_a_failure(tmp_path: Path) -> None:
    source = _fresh_store(tmp_path, "source.db")
    run_id = source.ensure_run(_spec()).run_id
    source.record_result(run_id, _result("q0", prediction="from the file"))
    source.record_result(run_id, _result("q1", prediction="", error="LLMError: timeout"))
    source.record_result(run_id, _result("q2", prediction="new answer"))
    path = tmp_path / "runs.jsonl"
    export_runs(source, [run_id], path)

    target = _fresh_store(tmp_path, "target.db")
    target.ensure_run(_spec())
    target.record_result(run_id, _result("q0", prediction="answered here"))
    target.record_result(run_id, _result("q1", prediction="answered here too"))
    summary = import_runs(target, path)

    predictions = {r.query_id: (r.prediction, r.error) for r in target.results(run_id)}
    assert predictions == {"q0": ("answered here", None), "q1": ("answered here too", None),
                           "q2": ("new answer", None)}
    assert (summary.results_added, summary.results_kept) == (1, 2)


def test_a_run_on_another_corpus_or_a_missing_dataset_is_skipped_with_the_reason(tmp_path: Path) -> None:
    source = _fresh_store(tmp_path, "source.db")
    path = tmp_path / "runs.jsonl.gz"
    export_runs(source, [_filled(source)], path)

    other = build_corpus()
    changed = Corpus(name="toy", paragraphs=other.paragraphs[:-1] + (Paragraph(5, "Title 5", "changed"),),
                     queries=other.queries)
    summary = import_runs(_fresh_store(tmp_path, "changed.db", changed), path)
    assert summary.runs == () and summary.results_added == 0
    assert "ingest the same dataset file" in summary.skipped[0].reason

    empty = Store(DBConnection(f"sqlite:///{tmp_path / 'empty.db'}").get_session_factory())
    assert "ingest it first" in import_runs(empty, path).skipped[0].reason
    assert import_runs(empty, path, datasets=["other"]).skipped == ()


def _write_lines(path: Path, records: list[Any]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _exported_lines(tmp_path: Path) -> list[dict[str, Any]]:
    source = _fresh_store(tmp_path, "source.db")
    path = tmp_path / "good.jsonl"
    export_runs(source, [_filled(source)], path)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_damaged_line_is_named(tmp_path: Path) -> None:
    lines = _exported_lines(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(json.dumps(r) for r in lines[:2]) + "\n{not json\n", encoding="utf-8")
    target = _fresh_store(tmp_path, "target.db")
    with pytest.raises(StoreError, match=r"bad\.jsonl, line 3: not JSON"):
        import_runs(target, bad)

    lines[2]["result"]["chunk_ids"] = ["4"]
    _write_lines(bad, lines)
    with pytest.raises(StoreError, match=r"line 3: field 'chunk_ids' must hold integers"):
        import_runs(target, bad)


def test_an_edited_configuration_no_longer_matches_its_run_id(tmp_path: Path) -> None:
    lines = _exported_lines(tmp_path)
    lines[1]["run"]["config"]["top_k"] = 8
    edited = tmp_path / "edited.jsonl"
    _write_lines(edited, lines)
    with pytest.raises(StoreError, match=r"line 2: run \w+ does not match its configuration"):
        import_runs(_fresh_store(tmp_path, "target.db"), edited)


def test_a_file_that_is_not_an_export_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.jsonl.gz"
    with gzip.open(other, "wt", encoding="utf-8") as out:
        out.write('{"question": "?"}\n')
    with pytest.raises(StoreError, match="line 1: not a hopkit run export"):
        import_runs(_fresh_store(tmp_path, "target.db"), other)
    with pytest.raises(StoreError, match="cannot read the export file"):
        import_runs(_fresh_store(tmp_path, "target2.db"), tmp_path / "missing.jsonl")


def test_verdicts_travel_with_their_run_and_are_never_replaced(tmp_path: Path) -> None:
    source = _fresh_store(tmp_path, "source.db")
    run_id = _filled(source)
    source.verdicts.record(run_id, "qwen", "table15-v1", StoredVerdict("q0", "Paris", True, "Yes"))
    source.verdicts.record(run_id, "qwen", "table15-v1", StoredVerdict("q2", "Rome", None, "maybe"))
    path = tmp_path / "runs.jsonl.gz"
    export_runs(source, [run_id], path)

    target = _fresh_store(tmp_path, "target.db")
    target.ensure_run(_spec())
    target.verdicts.record(run_id, "qwen", "table15-v1", StoredVerdict("q0", "Paris", False, "No"))
    summary = import_runs(target, path)

    assert summary.verdicts_added == 1
    assert target.verdicts.verdicts(run_id, "qwen", "table15-v1") == {
        "q0": StoredVerdict("q0", "Paris", False, "No"), "q2": StoredVerdict("q2", "Rome", None, "maybe")}


#: What a hopkit from before labelled usage components wrote for ``_result``'s cost: every model call under
#: "model" with its calls and seconds, the tokens only at the top, and MIGRES-style counters in the metadata.
OLD_USAGE = {"prompt_tokens": 300, "completion_tokens": 12, "cached_prompt_tokens": 200, "total_seconds": 2.5,
             "components": {"model": {"calls": 3, "seconds": 2.2}, "retrieval": {"calls": 2, "seconds": 0.01}}}


def test_a_run_exported_by_an_earlier_version_imports_and_scores_the_same(store: Store, make_corpus: Any,
                                                                          tmp_path: Path) -> None:
    store.add_corpus(make_corpus())
    run_id = _filled(store)
    path = tmp_path / "runs.jsonl.gz"
    export_runs(store, [run_id], path)
    lines = [json.loads(line) for line in gzip.open(path, "rt", encoding="utf-8")]
    for line in lines:
        if "result" in line:
            line["result"]["usage"] = OLD_USAGE
            line["result"]["trace"]["llm_calls"] = {"leaf": 2, "main": 1, "total": 3}
    old = tmp_path / "old.jsonl.gz"
    with gzip.open(old, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(line) + "\n" for line in lines)

    target = _fresh_store(tmp_path, "target.db")
    assert import_runs(target, old).results_added == 2
    assert [r.usage for r in target.results(run_id)] == [_result("q0").usage] * 2
    imported, _ = score_run(target, target.run(run_id))
    original, _ = score_run(store, store.run(run_id))
    assert dict(imported.cost) == dict(original.cost) and imported.llm_seconds_per_q == pytest.approx(2.2)

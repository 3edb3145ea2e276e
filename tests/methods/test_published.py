"""The published results the method packages declare: a row without a source or a setting is refused, and every
declared row loads, names a registered method, a hopkit config that exists and a metric hopkit scores."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from hopkit.config import named_configs
from hopkit.errors import ConfigError, UnknownNameError
from hopkit.evaluation.scoring import METRIC_NAMES
from hopkit.methods.flashrag_benchmark import BASE_SHEET, LLAMA3_8B, SPLITS
from hopkit.methods.published import (Model, PublishedResult, Questions, Setting, Source, all_published,
                                      published_of, published_table, table_names)
from hopkit.methods.registry import BUILT_IN, entries

pytestmark = pytest.mark.unit

SETTING = Setting(model=LLAMA3_8B, corpus="wiki18", corpus_title="a corpus", retriever="e5-base-v2, Faiss Flat",
                  retrieval="e5-wiki18-flat", top_k=5, questions=Questions("dev", first=1000))


def _row(**changes: Any) -> PublishedResult:
    fields: dict[str, Any] = dict(method="oner", run="oner", row="Standard RAG", dataset="hotpotqa", metric="em",
                                  value=25.1, source=BASE_SHEET, setting=SETTING)
    return PublishedResult(**{**fields, **changes})


def test_a_complete_row_is_accepted() -> None:
    assert _row().value == 25.1


@pytest.mark.parametrize("changes, message", [
    ({"source": None}, "no source; say where the number was read"),
    ({"setting": None}, "no setting; say the model, corpus, retriever, top-k and questions"),
    ({"metric": "accuracy"}, "metric 'accuracy' is not one of em, f1"),
    ({"value": 0.255 * 1000}, "is not a percentage"),
    ({"dataset": ""}, "method, run, row and dataset are all needed"),
])
def test_a_row_without_its_source_setting_or_a_known_metric_is_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _row(**changes)


def test_a_source_or_setting_missing_a_part_is_refused() -> None:
    with pytest.raises(ConfigError, match="table, title, file and url are all needed"):
        Source(table="flashrag", title="a sheet", file="", url="https://example.org")
    with pytest.raises(ConfigError, match="name a repository and its commit together"):
        Source(table="t", title="a sheet", file="f", url="u", repository="owner/name")
    with pytest.raises(ConfigError, match="is not a hex hash"):
        Source(table="t", title="a sheet", file="f", url="u", repository="owner/name", commit="main")
    with pytest.raises(ConfigError, match="corpus, corpus_title, retriever and retrieval are all needed"):
        replace(SETTING, retriever="")
    with pytest.raises(ConfigError, match="top_k must be positive"):
        replace(SETTING, top_k=0)
    with pytest.raises(ConfigError, match="name the split"):
        Questions("")


def test_a_model_matches_its_names_and_hub_id_only() -> None:
    model = Model("Llama3-8B-Instruct", "meta-llama/Meta-Llama-3-8B-Instruct")
    assert model.matches("meta-llama/Meta-Llama-3-8B-Instruct") and model.matches("meta-llama-3-8b-instruct")
    assert model.matches("/models/Meta-Llama-3-8B-Instruct/") and model.matches("llama3-8b-instruct")
    assert not model.matches("qwen2.5-coder-1.5b-instruct-q4_k_m")


@pytest.mark.parametrize("package", BUILT_IN)
def test_every_declared_row_loads_and_names_a_method_a_config_and_a_metric(package: str) -> None:
    pipelines = set(named_configs("pipelines"))
    for row in published_of(package):
        assert row.method in entries(), row
        assert row.run in pipelines, row
        assert row.metric in METRIC_NAMES, row
        if row.source.table == "flashrag":
            assert row.dataset in SPLITS and row.setting.questions.split == SPLITS[row.dataset], row
        # A file of a repository at a commit, or a paper's arXiv page at a version.
        assert row.source.repository and row.source.commit or row.source.url.startswith("https://arxiv.org/abs/"), row
        assert row.source.url.startswith("https://"), row


def test_the_required_tables_are_declared() -> None:
    assert "flashrag" in table_names()
    runs = {row.run for row in published_table("flashrag")}
    assert {"nor", "oner", "flare", "iter-retgen", "ircot", "adaptive-rag", "search-r1", "r1-searcher",
            "autorefine"} <= runs
    # Each (row, model, dataset, metric) once: a number is declared in one place.
    keys = [(r.source.title, r.row, r.setting.model.name, r.dataset, r.metric) for r in all_published()]
    assert len(keys) == len(set(keys))
    with pytest.raises(UnknownNameError, match="unknown published table 'search-r1-table9'; known: "
                                               "adaptive-rag-paper, flashrag, search-r1-paper"):
        published_table("search-r1-table9")


def test_the_search_r1_papers_table_2_rows_at_both_sizes() -> None:
    rows = published_table("search-r1-paper")
    assert {(row.run, row.row) for row in rows} == {
        ("nor", "Direct Inference"), ("ircot", "IRCoT"), ("search-o1", "Search-o1"), ("oner", "RAG"),
        ("search-r1", "Search-R1-base"), ("search-r1", "Search-R1-instruct")}
    assert len(rows) == 6 * 2 * 7 and {row.metric for row in rows} == {"em"}
    hotpot_3b = {row.row: row.value for row in rows
                 if row.dataset == "hotpotqa" and row.setting.model.hub_id.lower().find("3b") >= 0}
    assert hotpot_3b == {"Direct Inference": 14.9, "IRCoT": 16.4, "Search-o1": 22.1, "RAG": 25.5,
                         "Search-R1-base": 28.4, "Search-R1-instruct": 32.4}
    assert {row.setting.top_k for row in rows} == {3} and {row.setting.retrieval for row in rows} == {"e5-wiki18-flat"}
    assert {row.setting.questions.first for row in rows} == {None}  # whole splits


def test_the_adaptive_rag_papers_flan_t5_xl_rows() -> None:
    rows = published_table("adaptive-rag-paper")
    assert {row.run for row in rows} == {"nor", "oner", "adaptive-rag", "ircot"}
    assert {row.dataset for row in rows} == {"nq", "triviaqa", "hotpotqa", "2wikimultihopqa", "musique"}
    adaptive = {(row.dataset, row.metric): row.value for row in rows if row.run == "adaptive-rag"}
    assert adaptive[("musique", "em")] == 23.6 and adaptive[("hotpotqa", "f1")] == 53.82
    assert {row.setting.top_k for row in rows} == {None}  # the paper does not say
    assert {row.setting.corpus for row in rows if row.dataset == "nq"} == {"wiki18"}
    assert all("{stored}" in row.setting.ingest for row in rows)


def test_an_ingest_command_must_name_the_stored_dataset() -> None:
    with pytest.raises(ConfigError, match="its ingest command names no {stored}"):
        replace(SETTING, ingest="hopkit ingest ircot test.jsonl")

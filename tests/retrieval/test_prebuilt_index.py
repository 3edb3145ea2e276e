"""``index_path:``: a FAISS index built elsewhere, searched over a corpus stored once (issue 72, item 4).

The corpus is a wiki-18 JSONL file stored with ``hopkit corpus add``; the indexes hold the real
all-MiniLM-L6-v2's vectors of its passages in file order (:mod:`tests.retrieval.prebuilt_fixtures`). A
passage's own ``contents`` as the query finds it first (cosine 1), which shows that row ``i`` is the file's
``i``-th passage; a Flat index gives the exact top k. The published layout (a Flat index split into
``part_aa`` and ``part_ab``) comes from a loopback stand-in for the Hub.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest

from hopkit import environment
from hopkit.errors import RetrievalError
from hopkit.llm.testing_hub import loopback_only, serve_fake_hub
from hopkit.pipelines.retrieval.prebuilt import PrebuiltIndexPipeline
from hopkit.retrieval.prebuilt import read_faiss_file
from hopkit.store import Store
from tests.cli.running import StoreCli
from tests.retrieval.prebuilt_fixtures import FIRST_ID, PASSAGES, contents_of, minilm_or_skip, wiki_and_vectors, \
    write_index

pytestmark = pytest.mark.unit

faiss = pytest.importorskip("faiss")
pytest.importorskip("sentence_transformers")


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray]:
    with pytest.MonkeyPatch.context() as patch:
        minilm_or_skip(patch)
        return wiki_and_vectors(tmp_path_factory.mktemp("wiki"))


@pytest.fixture()
def store(made: tuple[Path, np.ndarray], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> Store:
    """A store holding the wiki file as the corpus ``wiki18`` and two questions on it (dataset ``qs``)."""
    minilm_or_skip(monkeypatch)
    url = f"sqlite:///{tmp_path / 'hopkit.db'}"
    cli = StoreCli(url, capsys)
    cli.ok("corpus", "add", "wiki18", str(made[0]), "--quiet")
    questions = tmp_path / "dev.jsonl"
    questions.write_text("".join(json.dumps({"id": f"d{i}", "question": f"Which river does Town {i} lie on?",
                                             "golden_answers": [f"river number {i}"]}) + "\n" for i in (42, 7)),
                         encoding="utf-8")
    cli.ok("ingest", "flashrag", str(questions), "--name", "qs", "--on-corpus", "wiki18")
    return Store.connect(url)


def pipeline(store: Store, index_path: str | list[str], **options: object) -> PrebuiltIndexPipeline:
    return PrebuiltIndexPipeline(store._factory, "mine", embedder="minilm", index_path=index_path, **options)


def passage(source_id: int, made: tuple[Path, np.ndarray]) -> str:
    return contents_of(made[0])[source_id - FIRST_ID]


SEARCH = {"Flat": {}, "HNSW16": {"ef_search": 64}, "IVF4,Flat": {"nprobe": 4}}  # IVF: all 4 lists, so exact


@pytest.mark.parametrize("kind", list(SEARCH))
def test_a_query_is_answered_through_index_path(kind: str, made: tuple[Path, np.ndarray], store: Store,
                                                tmp_path: Path) -> None:
    wiki, vectors = made
    path = write_index(vectors, tmp_path / "wiki18_minilm.index", kind)
    retriever = pipeline(store, str(path), **SEARCH[kind]).retriever("qs")
    for source_id in (42, 7, FIRST_ID + PASSAGES - 1):  # row 35, the first row and the last
        [first, *_] = retriever.retrieve(passage(source_id, made), 5)
        assert first.paragraph.title == f"Town {source_id}" and first.score == pytest.approx(1.0, abs=1e-4)
    query = "Which river does Town 42 lie on?"
    hits = retriever.retrieve(query, 5)
    from hopkit.retrieval.embedders import load_embedder

    exact = np.argsort(-(vectors @ load_embedder("minilm").embed([query])[0]))[:5]  # every row scored
    assert [hit.paragraph.id for hit in hits] == exact.tolist()
    assert [hit.paragraph.title for hit in retriever.retrieve(query, 3, exclude={int(exact[0])})] \
        == [f"Town {int(row) + FIRST_ID}" for row in exact[1:4]]
    assert [hit.paragraph.title for hit in retriever.retrieve(query, 2, titles=["Town 100", "Town 9"])] \
        in (["Town 100", "Town 9"], ["Town 9", "Town 100"])


@pytest.mark.parametrize("kind", ["HNSW16", "IVF4,Flat"])
def test_a_served_batch_searches_the_index_once_and_answers_as_one_by_one(
        kind: str, made: tuple[Path, np.ndarray], store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hopkit.serving.batch_search import batched_encoding, batched_search, search_batch
    from hopkit.remote_retrieval.wire import QueryItem

    retriever = pipeline(store, str(write_index(made[1], tmp_path / "wiki.index", kind)), **SEARCH[kind]).retriever("qs")
    items = [QueryItem(f"Which river does Town {town} lie on?", 3, exclude) for town, exclude in
             ((42, ()), (7, (FIRST_ID,)), (150, ()), (42, ()))]
    items.append(QueryItem("Town 9", 2, (), ("Town 9", "Town 100")))  # a title restriction: scored exactly
    alone = [retriever.retrieve(item.text, item.k, frozenset(item.exclude), item.titles) for item in items]
    [index] = batched_search(retriever)
    calls = []
    original = index.nearest_many
    monkeypatch.setattr(index, "nearest_many", lambda vectors, wanted: calls.append(len(vectors)) or
                        original(vectors, wanted))
    monkeypatch.setattr(index, "nearest", lambda *_: pytest.fail("a query of the batch searched on its own"))
    batched = search_batch(retriever, batched_encoding(retriever), items)
    # The same passages; the scores up to what MiniLM computes differently for a padded batch (the last bits).
    assert [[hit.id for hit in hits] for hits in batched] == [[hit.id for hit in hits] for hits in alone]
    assert [hit.score for hits in batched for hit in hits] == pytest.approx(
        [hit.score for hits in alone for hit in hits], abs=1e-5)
    # One search per count of rows wanted: the two queries excluding nothing at once (the repeated one found once),
    # the one excluding a passage wants a row more; the title-restricted one is scored exactly, not searched.
    assert sorted(calls) == [1, 2]
    assert len(index._batch) == 0  # forgotten once the batch is answered


def test_an_index_one_row_short_is_refused(made: tuple[Path, np.ndarray], store: Store, tmp_path: Path) -> None:
    path = write_index(made[1][:-1], tmp_path / "short.index")
    with pytest.raises(RetrievalError) as refused:
        pipeline(store, str(path)).retriever("qs")
    message = str(refused.value)
    assert message.startswith(f"index_path {path} (retrieval 'mine'): the index holds 299 rows but dataset 'qs' ")
    assert message.endswith("holds 300 passages; row i is the corpus's i-th passage, so the two must be equal: give "
                            "the index built over this corpus file (and the whole corpus stored)")
    assert "\n" not in message


def test_an_index_of_another_dimension_is_refused(store: Store, tmp_path: Path) -> None:
    vectors = np.random.default_rng(0).standard_normal((PASSAGES, 768)).astype(np.float32)
    path = write_index(vectors, tmp_path / "e5.index")
    with pytest.raises(RetrievalError) as refused:
        pipeline(store, str(path)).retriever("qs")
    message = str(refused.value)
    assert message.startswith(f"index_path {path} (retrieval 'mine'): the index's vectors have 768 dimensions but "
                              "embedder 'sentence-transformers:sentence-transformers/all-MiniLM-L6-v2' gives 384")
    assert "\n" not in message


def test_a_file_that_is_no_index_or_none_is_refused(store: Store, tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.index"
    garbage.write_bytes(b"not a FAISS index at all")
    with pytest.raises(RetrievalError, match=r"garbage.index: not a FAISS index FAISS can read \("):
        pipeline(store, str(garbage)).retriever("qs")
    with pytest.raises(RetrievalError, match=r"index_path .*nowhere.index: no such file"):
        pipeline(store, str(tmp_path / "nowhere.index")).retriever("qs")


def anonymous_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1])
    pytest.skip("no RssAnon in /proc/self/status (Linux)")
    return 0


@pytest.mark.parametrize("kind", ["Flat", "HNSW16"])
def test_a_flat_or_hnsw_index_is_mapped_not_copied_into_the_process(kind: str, tmp_path: Path) -> None:
    """A 60 MiB index read leaves the process's private (anonymous) memory about where it was: its pages are
    the page cache's, shared by every process that maps the file."""
    vectors = np.random.default_rng(1).standard_normal((20_000, 768)).astype(np.float32)
    path = write_index(vectors, tmp_path / "big.index", kind)
    del vectors
    before = anonymous_kib()
    index, how = read_faiss_file(path)
    index.search(np.ones((1, 768), dtype=np.float32), 5)
    assert how == "mapped" and anonymous_kib() - before < 10 * 1024  # the index is 60 MiB of vectors


@pytest.fixture()
def hub_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The Hub cache in the test's folder; every connection checked to go to 127.0.0.1 only."""
    monkeypatch.setenv(environment.HOPKIT_CACHE_DIR, str(tmp_path / "cache"))
    with loopback_only() as hosts:
        yield hosts
    assert set(hosts) <= {"127.0.0.1"}, hosts


def test_a_flat_index_published_in_two_parts_is_downloaded_and_joined_once(
        made: tuple[Path, np.ndarray], store: Store, tmp_path: Path, hub_env: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    whole = write_index(made[1], tmp_path / "e5_Flat.index").read_bytes()
    cut = len(whole) // 3  # `split -b`: the first part is not a whole number of rows
    files = {"datasets/acme/wiki-18-minilm-index/part_aa": whole[:cut],
             "datasets/acme/wiki-18-minilm-index/part_ab": whole[cut:]}
    parts = ["hf://datasets/acme/wiki-18-minilm-index/part_aa", "hf://datasets/acme/wiki-18-minilm-index/part_ab"]
    with serve_fake_hub(files) as hub:
        monkeypatch.setenv(environment.HF_ENDPOINT, hub.url)
        retriever = pipeline(store, parts).retriever("qs")
        assert retriever.retrieve(passage(42, made), 1)[0].paragraph.title == "Town 42"
        assert sorted(r.path for r in hub.requests if r.method == "GET") == [
            "/datasets/acme/wiki-18-minilm-index/resolve/main/part_aa",
            "/datasets/acme/wiki-18-minilm-index/resolve/main/part_ab"]
        asked = len(hub.requests)
        again = pipeline(store, parts).retriever("qs")  # a new process's pipeline: the joined file is there
        assert again.retrieve(passage(7, made), 1)[0].paragraph.title == "Town 7"
        assert len(hub.requests) == asked
    hub_cache = tmp_path / "cache" / "hub"
    joined = hub_cache / "joined" / "datasets--acme--wiki-18-minilm-index" / "main" / "part_aa+part_ab"
    assert joined.read_bytes() == whole
    repo = hub_cache / "datasets--acme--wiki-18-minilm-index"
    assert not [p for p in repo.glob("*/**/*") if p.is_file() and "refs" not in p.parts]  # the parts removed
    assert not list(joined.parent.glob(".*tmp*"))


@pytest.mark.parametrize("config, repo", [("e5-wiki18-flat", "PeterJinGo/wiki-18-e5-index"),
                                          ("e5-wiki18-hnsw64", "PeterJinGo/wiki-18-e5-index-HNSW64")])
def test_the_shipped_configs_fetch_search_r1s_two_parts_and_check_them_before_loading_e5(
        config: str, repo: str, made: tuple[Path, np.ndarray], store: Store, tmp_path: Path, hub_env: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped configs name Search-R1's repositories and parts, e5-base-v2 as the query model; an index of
    another row count than the stored corpus is refused once joined, before e5 is loaded."""
    from hopkit.config import load_named

    shipped = load_named("retrieval", config, session_factory=store._factory)
    assert shipped.options == {"embedder": "e5-base-v2",
                               "index_path": [f"hf://datasets/{repo}/part_aa", f"hf://datasets/{repo}/part_ab"]}
    whole = write_index(made[1][:-1], tmp_path / "e5.index").read_bytes()  # 299 rows for the corpus's 300
    files = {f"datasets/{repo}/part_aa": whole[:4096], f"datasets/{repo}/part_ab": whole[4096:]}
    with serve_fake_hub(files) as hub:
        monkeypatch.setenv(environment.HF_ENDPOINT, hub.url)
        with pytest.raises(RetrievalError, match=r"the index holds 299 rows but dataset 'qs' .*holds 300 passages"):
            shipped.retriever("qs")
        assert sorted(r.path for r in hub.requests if r.method == "GET") == [
            f"/datasets/{repo}/resolve/main/part_aa", f"/datasets/{repo}/resolve/main/part_ab"]

"""A retrieval server as a run's retriever: the same answers as in process, the server named in the run id,
a restart on another index detected, a dead server failing questions that a rerun resumes, a farm moving on."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from hopkit.errors import LLMServerError, RetrievalError, RetrievalServerError
from hopkit.llm.fake import ScriptedLLM
from hopkit.pipelines.generation.one_step import OneRGenerationPipeline
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.pipelines.retrieval.remote import RemoteRetrievalPipeline
from hopkit.serving.options import ServerOptions
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from tests.serving.loopback import running, served_sample

pytestmark = pytest.mark.integration


def prompt_digest(prompt: str) -> str:
    """An 'answer' that is the same exactly when the prompt is: the same question with the same paragraphs."""
    return "answer " + hashlib.sha256(prompt.encode()).hexdigest()[:12]


def remote(factory: object, url: str | list[str], **options: object) -> RemoteRetrievalPipeline:
    return RemoteRetrievalPipeline(factory, "remote", url=url, max_retries=0, backoff=0.0, **options)  # type: ignore[arg-type]


def results_by_question(store: Store, run_id: str) -> dict[str, tuple[str, tuple[int, ...], str | None]]:
    return {r.query_id: (r.prediction, r.chunk_ids, r.error) for r in store.results(run_id)}


@pytest.mark.parametrize("protocol", ["hopkit", "search-r1"])
def test_oner_over_a_served_bm25_answers_as_over_the_same_bm25_in_process(store_url: str, protocol: str) -> None:
    factory = DBConnection(store_url).get_session_factory()
    store = Store(factory)
    local = OneRGenerationPipeline(factory, "oner-local", ScriptedLLM(prompt_digest), BM25RetrievalPipeline(factory))
    local_run = local.run(progress=False)
    with running(served_sample(store_url)) as server:
        over_http = OneRGenerationPipeline(factory, "oner-remote", ScriptedLLM(prompt_digest),
                                           remote(factory, server.url, protocol=protocol))
        remote_run = over_http.run(progress=False)
    assert remote_run["finished"] == local_run["finished"] == 6
    assert remote_run["run_id"] != local_run["run_id"]
    assert results_by_question(store, remote_run["run_id"]) == results_by_question(store, local_run["run_id"])


def test_the_run_id_records_the_servers_corpus_and_retriever_not_its_url(store_url: str, tmp_path: Path) -> None:
    factory = DBConnection(store_url).get_session_factory()
    (tmp_path / "configs" / "retrieval").mkdir(parents=True)
    (tmp_path / "configs" / "retrieval" / "bm25-flat.yaml").write_text(
        "_target_: hopkit.pipelines.retrieval.bm25.BM25RetrievalPipeline\nname: bm25-flat\nk1: 0.9\nb: 0.4\n")
    served = served_sample(store_url)
    ids = []
    for config in ("bm25", "bm25", "bm25-flat"):
        with running(served if config == "bm25" else served_sample(store_url, config)) as server:
            pipeline = remote(factory, server.url)
            spec = pipeline.spec("sample")
            ids.append(OneRGenerationPipeline(factory, "oner", ScriptedLLM([]), pipeline).run_spec().run_id)
            if config == "bm25":
                assert spec["corpus_fingerprint"] == Store(factory).fingerprint("sample")
                assert spec["retriever"] == served.identity
                assert server.url not in str(spec)
    assert ids[0] == ids[1] != ids[2]  # another port, the same index: the same run; another index: another


def test_a_server_restarted_on_another_index_stops_the_question_with_a_clear_error(store_url: str,
                                                                                  tmp_path: Path) -> None:
    factory = DBConnection(store_url).get_session_factory()
    (tmp_path / "configs" / "retrieval").mkdir(parents=True)
    (tmp_path / "configs" / "retrieval" / "bm25-flat.yaml").write_text(
        "_target_: hopkit.pipelines.retrieval.bm25.BM25RetrievalPipeline\nname: bm25-flat\nk1: 0.9\nb: 0.4\n")
    with running(served_sample(store_url)) as first:
        pipeline = remote(factory, first.url)
        retriever = pipeline.retriever("sample")
        assert retriever.retrieve("Ember Tide", 2)
        port = first.port
    with running(served_sample(store_url, "bm25-flat"), port=port):
        with pytest.raises(RetrievalServerError, match="now serves retriever .* not .* this run began with"):
            retriever.retrieve("Ember Tide", 2)


def test_a_server_killed_mid_run_fails_its_questions_as_server_errors_and_the_rerun_resumes(store_url: str) -> None:
    factory = DBConnection(store_url).get_session_factory()
    store = Store(factory)
    served = served_sample(store_url)
    with running(served) as server:
        calls = []

        def answer_then_kill(prompt: str) -> str:
            calls.append(prompt)
            if len(calls) == 2:
                server.stop()  # after the second question's retrieval: the third finds no server
            return prompt_digest(prompt)

        pipeline = OneRGenerationPipeline(factory, "oner", ScriptedLLM(answer_then_kill), remote(factory, server.url))
        with pytest.raises(LLMServerError, match="questions in a row failed"):
            pipeline.run(progress=False)
        run_id = store.runs()[0].run_id
        failed = [r for r in store.results(run_id) if r.error is not None]
        assert len(failed) == 3 and all(r.error.startswith("RetrievalServerError") for r in failed)
        port = server.port
    with running(served, port=port):
        again = OneRGenerationPipeline(factory, "oner", ScriptedLLM(prompt_digest), remote(factory, server.url))
        outcome = again.run(progress=False)
    assert outcome["run_id"] == run_id
    assert outcome["already_done"] == 2 and outcome["finished"] == 4 and outcome["failed"] == 0


def test_a_farm_moves_on_when_one_of_its_servers_dies(store_url: str) -> None:
    factory = DBConnection(store_url).get_session_factory()
    served = served_sample(store_url)
    with running(served) as one, running(served) as two:
        retriever = remote(factory, [one.url, two.url]).retriever("sample")
        expected = [hit.id for hit in served.retriever.retrieve("Marrowick river", 3)]
        assert [hit.id for hit in retriever.retrieve("Marrowick river", 3)] == expected
        one.stop()
        for _ in range(4):  # whichever server each request goes to first, every one is answered
            assert [hit.id for hit in retriever.retrieve("Marrowick river", 3)] == expected


def test_a_wrong_token_is_refused_and_the_one_from_the_environment_served(store_url: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    factory = DBConnection(store_url).get_session_factory()
    with running(served_sample(store_url), ServerOptions(token="tok-1")) as server:
        with pytest.raises(RetrievalError, match="HTTP 401.*HOPKIT_RETRIEVAL_TOKEN"):  # refused at once, not retried
            remote(factory, server.url, token="tok-2").retriever("sample")
        monkeypatch.setenv("HOPKIT_RETRIEVAL_TOKEN", "tok-1")
        assert remote(factory, server.url).retriever("sample").retrieve("Ember Tide", 1)


@pytest.mark.parametrize(("url", "message"), [("127.0.0.1:8000", "must start with http:// or https://"),
                                              ([], "names no server")])
def test_a_bad_url_is_a_config_error_naming_the_option(store_url: str, url: object, message: str) -> None:
    from hopkit.errors import ConfigError

    with pytest.raises(ConfigError, match=f"remote retrieval option 'url': .*{message}"):
        remote(DBConnection(store_url).get_session_factory(), url)  # type: ignore[arg-type]

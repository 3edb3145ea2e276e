"""The same questions on a corpus stored once (``ingest --on-corpus``), answered by threads and by Ray workers
(issue 72): the same run, the same passages retrieved, the same answers.

The retriever is a FAISS index named by ``index_path:`` (the real all-MiniLM-L6-v2's vectors of the corpus
file's passages), which each Ray worker maps and checks itself; the model is the loopback OpenAI-compatible
server, answering with the first river its prompt names. The Ray run is ``hopkit run --executor ray`` without
an address: a private cluster on this machine, one node, so SQLite is allowed.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hopkit.cli import main
from hopkit.llm.testing_server import serve_fake_openai
from hopkit.store import Store
from tests.retrieval.prebuilt_fixtures import minilm_or_skip, wiki_and_vectors, write_index

pytestmark = [pytest.mark.slow]

pytest.importorskip("faiss")
pytest.importorskip("sentence_transformers")

TOWNS = (42, 150, 9, 77)
RIVER = re.compile(r"river number \d+")


@pytest.fixture(scope="module", autouse=True)
def _ray() -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        if os.environ.get("HOPKIT_REQUIRE_RAY") == "1":
            pytest.fail("HOPKIT_REQUIRE_RAY=1 but Ray is not installed (pip install 'hopkit[ray]')")
        pytest.skip("Ray is not installed (pip install 'hopkit[ray]')")


def first_river(prompt: str) -> str:
    found = RIVER.search(prompt)
    return found.group(0) if found else "no idea"


def stored(store: Store, run_id: str) -> dict[str, tuple[str, tuple[int, ...]]]:
    return {r.query_id: (r.prediction, tuple(r.chunk_ids)) for r in store.results(run_id)}


def test_the_same_questions_on_a_named_corpus_by_threads_and_by_ray(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    minilm_or_skip(monkeypatch)
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    wiki, vectors = wiki_and_vectors(tmp_path)
    index = write_index(vectors, tmp_path / "wiki18_minilm_Flat.index")
    folder = tmp_path / "configs" / "retrieval"
    folder.mkdir(parents=True)
    (folder / "wiki18-mine.yaml").write_text("_target_: hopkit.pipelines.retrieval.prebuilt.PrebuiltIndexPipeline\n"
                                             f"name: wiki18-mine\nembedder: minilm\nindex_path: {index}\n",
                                             encoding="utf-8")
    questions = tmp_path / "dev.jsonl"
    questions.write_text("".join(json.dumps({"id": f"dev_{town}", "question": f"Which river does Town {town} lie on?",
                                             "golden_answers": [f"river number {town}"]}) + "\n" for town in TOWNS),
                         encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'hopkit.db'}"
    assert main(["--db", url, "corpus", "add", "wiki18", str(wiki), "--quiet"]) == 0
    assert main(["--db", url, "ingest", "flashrag", str(questions), "--name", "qs", "--on-corpus", "wiki18"]) == 0
    command = ["run", "oner", "--llm", "openai-compatible", "--dataset", "qs", "--retrieval", "wiki18-mine", "--quiet"]
    store = Store.connect(url)
    with serve_fake_openai(first_river) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("HOPKIT_OPENAI_MODEL", "fake-model")
        assert main(["--db", url, *command]) == 0, capsys.readouterr().err
        [run] = store.runs("qs")
        by_threads = stored(store, run.run_id)
        assert {query: answer for query, (answer, _) in by_threads.items()} == {
            f"dev_{town}": f"river number {town}" for town in TOWNS}  # each found its own town's passage first
        store.forget_results(run.run_id, list(by_threads))
        env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
        on_ray = subprocess.run([sys.executable, "-m", "hopkit.cli", "--db", url, *command, "--executor", "ray",
                                 "--workers", "2", "--cpus-per-worker", "0.5"], env=env, cwd=tmp_path,
                                capture_output=True, text=True, timeout=600)
    assert on_ray.returncode == 0, on_ray.stderr
    assert f"{len(TOWNS)} to answer, 2 at a time on Ray" in on_ray.stdout, on_ray.stdout
    assert [r.run_id for r in store.runs("qs")] == [run.run_id]  # the same run, whatever the executor
    assert stored(store, run.run_id) == by_threads

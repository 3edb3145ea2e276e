"""``hopkit ingest ... --on-corpus NAME``: questions stored against a corpus stored once, read from it (never
copied), retrieved from by a run over real BM25; a corpus not complete is refused, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, select, update

from hopkit.store import Store
from hopkit.store.models import Base, CorpusPassageRow, NamedCorpusRow, ParagraphRow

from ..data.corpus_fixtures import wiki18_file
from .running import StoreCli

pytestmark = pytest.mark.unit

QUESTIONS = [{"id": "dev_0", "question": "Which river does Town 42 lie on?",
              "golden_answers": ["river number 42", "the 42nd"], "metadata": {"type": "bridge"}},
             {"id": "dev_1", "question": "Which river does Town 7 lie on?", "golden_answers": ["river number 7"],
              "metadata": {}}]


def questions_file(path: Path) -> Path:
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in QUESTIONS), encoding="utf-8")
    return path


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, db: str) -> str:
    if request.param == "sqlite":
        return db
    server: str = request.getfixturevalue("postgres_url")
    engine = create_engine(server)
    try:
        Base.metadata.drop_all(engine)
    finally:
        engine.dispose()
    return server


def test_questions_on_a_named_corpus_are_answered_from_it(url: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    cli = StoreCli(url, capsys)
    wiki = wiki18_file(tmp_path / "wiki-18.jsonl.gz", 3000)
    cli.ok("corpus", "add", "wiki18", str(wiki), "--quiet")
    qs = questions_file(tmp_path / "dev.jsonl")
    for name in ("hotpotqa-fr", "nq-fr"):  # two datasets on one corpus: no passage copied
        out = cli.ok("ingest", "flashrag", str(qs), "--name", name, "--on-corpus", "wiki18", "--first", "20")
        assert out == f"ingested {name}: 2 questions on corpus wiki18 (3,000 passages, read from it, not copied)\n"
    store = Store.connect(url)
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            assert connection.scalar(select(func.count()).select_from(ParagraphRow)) == 0
            assert connection.scalar(select(func.count()).select_from(CorpusPassageRow)) == 3000
    finally:
        engine.dispose()
    assert store.fingerprint("nq-fr") == store.corpora.get("wiki18").fingerprint
    assert [q.gold_paragraph_ids for q in store.queries("nq-fr")] == [(), ()]
    assert store.paragraphs_by_ids("nq-fr", [35])[0].title == "Town 42"  # by position in the file (ids from 7)

    llm = tmp_path / "scripted.yaml"
    llm.write_text('_target_: hopkit.llm.fake.ScriptedLLM\nscript: ["river number 42", "river number 7"]\n',
                   encoding="utf-8")
    out = cli.ok("run", "oner", "--dataset", "hotpotqa-fr", "--retrieval", "bm25", "--llm", str(llm), "--quiet")
    assert "2 answered now, 0 failed" in out
    [run] = store.runs("hotpotqa-fr")
    retrieved = {r.query_id: store.paragraphs_by_ids("hotpotqa-fr", r.chunk_ids)[0].title
                 for r in store.results(run.run_id)}
    assert retrieved == {"dev_0": "Town 42", "dev_1": "Town 7"}


def test_an_incomplete_or_unknown_corpus_is_refused(url: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    cli = StoreCli(url, capsys)
    cli.ok("corpus", "add", "wiki18", str(wiki18_file(tmp_path / "wiki-18.jsonl", 50)), "--quiet")
    qs = questions_file(tmp_path / "dev.jsonl")
    code, _, err = cli("ingest", "flashrag", str(qs), "--on-corpus", "wiki1")
    assert code == 2 and err == "hopkit: error: unknown corpus 'wiki1'; known corpora: wiki18. Store it first " \
                                "with `hopkit corpus add NAME PATH`\n"
    code, _, err = cli("ingest", "flashrag", str(qs), "--on-corpus", "wiki18", "--corpus", str(qs))
    assert code == 2 and "--on-corpus and --corpus: give one" in err
    cli.ok("ingest", "flashrag", str(qs), "--name", "fr", "--on-corpus", "wiki18")
    code, _, err = cli("corpus", "add", "wiki18", str(wiki18_file(tmp_path / "other.jsonl", 60)), "--replace")
    assert code == 2 and "corpus 'wiki18' is the corpus of dataset(s) fr" in err

    # A corpus found incomplete (as a stopped `corpus add` leaves it): no ingest and no run use it.
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(update(NamedCorpusRow).values(complete=False))
    finally:
        engine.dispose()
    code, _, err = cli("ingest", "flashrag", str(qs), "--name", "fr2", "--on-corpus", "wiki18")
    assert code == 2 and err.count("\n") == 1 and "corpus 'wiki18' is incomplete (50 passages" in err
    assert "hopkit corpus add wiki18 " in err
    llm = tmp_path / "scripted.yaml"
    llm.write_text('_target_: hopkit.llm.fake.ScriptedLLM\nscript: ["x", "y"]\n', encoding="utf-8")
    code, _, err = cli("run", "oner", "--dataset", "fr", "--retrieval", "bm25", "--llm", str(llm), "--quiet")
    assert code == 2 and err.count("\n") == 1 and "retrieves from corpus 'wiki18', which is incomplete" in err
    assert f"run `hopkit corpus add wiki18 {(tmp_path / 'wiki-18.jsonl').resolve()}` again to finish it" in err

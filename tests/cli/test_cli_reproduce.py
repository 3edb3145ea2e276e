"""``hopkit reproduce TABLE``: a published table's cell run in its setting on a tiny stand-in of it (a wiki-18-format
corpus stored under its name, FlashRAG-format questions on it, a scripted model, real BM25), printing the published
number, hopkit's 95% interval and where the published number falls; resumed by the same command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hopkit.evaluation.aggregate import Estimate
from hopkit.reproduction import dataset_map, table_cells, verdict
from hopkit.methods.published import published_table
from hopkit.errors import ConfigError
from hopkit.store import Store

from ..data.corpus_fixtures import wiki18_file
from .running import StoreCli, hopkit

pytestmark = pytest.mark.unit

QUESTIONS = [{"id": "dev_0", "question": "Which river does Town 42 lie on?",
              "golden_answers": ["river number 42", "the 42nd"], "metadata": {}},
             {"id": "dev_1", "question": "Which river does Town 7 lie on?", "golden_answers": ["river number 7"],
              "metadata": {}}]


def table_rows(out: str) -> dict[tuple[str, str], list[str]]:
    """The printed table's rows by (config, metric): the cells split on runs of two spaces."""
    found = {}
    for line in out.splitlines():
        cells = [cell.strip() for cell in line.split("  ") if cell.strip()]
        if len(cells) >= 7 and cells[0] == "hotpotqa":
            found[cells[1], cells[2]] = cells
    return found


def test_a_cell_runs_in_the_tables_setting_and_sets_its_number_beside_the_published_one(
        db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli = StoreCli(db, capsys)
    cli.ok("corpus", "add", "wiki18", str(wiki18_file(tmp_path / "wiki-18.jsonl.gz", 300)), "--quiet")
    dev = tmp_path / "dev.jsonl"
    dev.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    cli.ok("ingest", "flashrag", str(dev), "--name", "hotpotqa", "--on-corpus", "wiki18", "--first", "20")
    llm = tmp_path / "scripted.yaml"
    llm.write_text('_target_: hopkit.llm.fake.ScriptedLLM\nscript: ["river number 42", "river number 7"]\n',
                   encoding="utf-8")
    command = ("reproduce", "flashrag", "--llm", str(llm), "--methods", "oner", "--datasets", "hotpotqa",
               "--retrieval", "bm25", "--quiet")

    out = cli.ok(*command, "--first", "1")  # the first question only: answered right
    assert "[1/1] oner on hotpotqa: k 5, first 1 question(s)" in out
    rows = table_rows(out)
    assert rows["oner", "EM"][3:] == ["25.1", "100.0 [100.0, 100.0]", "1", "outside: below hopkit's interval",
                                      "Standard RAG, Llama3-8B-Instruct"]
    assert rows["oner", "F1"][3] == "35.3"
    # Matched: the corpus (wiki18) and k (5); not matched: the model, the retriever, the questions.
    assert (f"- oner on hotpotqa (Llama3-8B-Instruct): model Llama3-8B-Instruct (runs: {llm}); retriever e5-base-v2, Faiss Flat (runs: "
            "BM25 k1 1.2 b 0.75); questions first 1,000 of dev (runs: 1)") in out

    # Resumed: only the second question is asked, and the script's first reply is wrong for it (asked both again,
    # both would be right).
    out = cli.ok(*command, "--first", "2")
    assert "[1/1] oner on hotpotqa: k 5, first 2 question(s)" in out
    rows = table_rows(out)
    assert rows["oner", "EM"][3:7] == ["25.1", "50.0 [0.0, 100.0]", "2", "inside"]
    code, out, err = cli("runs")
    assert code == 0 and len(out.splitlines()) == 2 and "2 done, 0 failed" in out  # one run, resumed

    # The table's k, not the config's: the search-r1 template retrieves 3 passages by default, FlashRAG's table 5.
    agent = tmp_path / "agent.yaml"
    agent.write_text('_target_: hopkit.llm.fake.ScriptedLLM\nscript: ["<answer>river number 42</answer>"]\n',
                     encoding="utf-8")
    out = cli.ok("reproduce", "flashrag", "--llm", str(agent), "--methods", "search-r1", "--datasets", "hotpotqa",
                 "--retrieval", "bm25", "--first", "1", "--quiet")
    assert "[1/1] search-r1 on hotpotqa: k 5, first 1 question(s)" in out
    assert table_rows(out)["search-r1", "EM"][3:7] == ["42.9", "100.0 [100.0, 100.0]", "1",
                                                       "outside: below hopkit's interval"]
    [run] = [run for run in Store.connect(db).runs("hotpotqa") if run.name == "search-r1"]
    assert run.config["method"]["k"] == 5

    # A table with rows at two model sizes: each published number on its own line, the setting named per model.
    out = cli.ok("reproduce", "search-r1-paper", "--llm", str(llm), "--methods", "oner", "--datasets", "hotpotqa",
                 "--retrieval", "bm25", "--first", "1", "--quiet")
    assert "[1/1] oner on hotpotqa: k 3, first 1 question(s)" in out
    assert "29.9" in out and "25.5" in out and "RAG, Qwen2.5-7B-Instruct" in out and "RAG, Qwen2.5-3B-Instruct" in out
    assert "- oner on hotpotqa (Qwen2.5-7B-Instruct): model Qwen2.5-7B-Instruct" in out
    assert "- oner on hotpotqa (Qwen2.5-3B-Instruct): model Qwen2.5-3B-Instruct" in out

    # The leaderboard `hopkit report` writes shows the table's rows under the run, with how their setting differs.
    cli.ok("report", "--out", str(tmp_path / "report"), "--leaderboard", str(tmp_path / "leaderboard.md"))
    for page in (tmp_path / "leaderboard.md", tmp_path / "report" / "leaderboard.md"):
        text = page.read_text(encoding="utf-8")
        assert "**not hopkit runs**" in text and "| Standard RAG | oner | Llama3-8B-Instruct |" in text
        assert f"model Llama3-8B-Instruct (runs: {llm}); retriever e5-base-v2, Faiss Flat" in text


def test_a_benchmark_with_no_stored_dataset_says_how_to_store_it(db: str, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    cli = StoreCli(db, capsys)
    cli.ok("corpus", "add", "wiki18", str(wiki18_file(tmp_path / "wiki-18.jsonl", 20)), "--quiet")
    code, out, err = cli("reproduce", "flashrag", "--llm", "smollm2", "--methods", "nor", "--datasets", "nq",
                         "--dataset-map", "nq=nq-fr")
    assert code == 2 and err.count("\n") == 1 and "none of its 1 cell(s) has its dataset stored" in err
    assert ("not run: nor on nq: no stored dataset 'nq-fr'; store it with `hopkit ingest flashrag/nq --split test "
            "--first 1000 --on-corpus wiki18 --name nq-fr` (after `hopkit corpus add wiki18`)") in out
    code, _, err = cli("reproduce", "search-r1-table2", "--llm", "smollm2")
    assert code == 2 and "unknown published table 'search-r1-table2'; known: adaptive-rag-paper, flashrag, search-r1-paper" in err
    code, out, _ = cli("reproduce", "adaptive-rag-paper", "--llm", "smollm2", "--methods", "nor", "--datasets",
                       "musique", "--dataset-map", "musique=musique-ircot")
    assert code == 2 and "store it with `hopkit ingest ircot PROCESSED_TEST_FILE --name musique-ircot --corpus" in out
    code, _, err = cli("reproduce", "flashrag", "--llm", "smollm2", "--methods", "self-ask")
    assert code == 2 and "--methods self-ask: the table has no row of it" in err


def test_reproduce_help_names_the_tables(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        hopkit(capsys, "reproduce", "--help")
    assert exit_.value.code == 0 and "the published table: flashrag" in capsys.readouterr().out


def test_cells_verdicts_and_the_dataset_map() -> None:
    cells = table_cells(published_table("flashrag"), ["search-r1"], ["musique", "hotpotqa"], {"musique": "mq"})
    assert [(c.run, c.dataset, c.stored, [r.metric for r in c.published]) for c in cells] == [
        ("search-r1", "hotpotqa", "hotpotqa", ["em", "f1"]), ("search-r1", "musique", "mq", ["em", "f1"])]
    assert cells[1].published[0].value == 21.2 and cells[1].setting.top_k == 5
    interval = Estimate(0.30, 0.20, 0.40, 100)
    assert [verdict(v, interval) for v in (19.9, 20.0, 40.0, 40.1)] == [
        "outside: below hopkit's interval", "inside", "inside", "outside: above hopkit's interval"]
    with pytest.raises(ConfigError, match="expected BENCHMARK=STORED_DATASET"):
        dataset_map(["hotpotqa"])

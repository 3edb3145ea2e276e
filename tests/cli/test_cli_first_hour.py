"""What a new user outside the repository trips on (issue 29), each as it is met.

The store is a real SQLite file, the retriever the real BM25 index; the model is the scripted
LLM config, or the loopback OpenAI-compatible server where concurrency is the point. Runs
are started from a folder holding no configs, as a user who installed hopkit would.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from hopkit import __version__
from hopkit.cli import main
from hopkit.cli.run import run_exit_code
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.testing_server import serve_fake_openai
from hopkit.pipelines.generation.migres import MIGRESGenerationPipeline
from hopkit.pipelines.generation.no_retrieval import NoRGenerationPipeline
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

from .running import hopkit

pytestmark = pytest.mark.unit




def scripted(path: Path, replies: list[str]) -> str:
    path.write_text("_target_: hopkit.llm.fake.ScriptedLLM\nscript: [" + ", ".join(f'"{r}"' for r in replies)
                    + "]\n", encoding="utf-8")
    return str(path)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out == f"hopkit {__version__}\n"
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert f'version = "{__version__}"' in pyproject


def test_the_bundled_sample_and_shipped_configs_by_name_from_an_empty_folder(
        db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "3")
    assert code == 0 and out.startswith("ingested sample: 3 questions"), err
    llm = scripted(tmp_path / "scripted.yaml", ["Velmora"] * 3)
    code, out, err = hopkit(capsys, "--db", db, "run", "oner", "--llm", llm, "--quiet")
    assert code == 0, err
    assert out.splitlines()[0].startswith("run oner (") and "3 answered now, 0 failed" in out
    code, _, err = hopkit(capsys, "--db", db, "run", "configs/pipelines/oner.yaml", "--llm", llm)
    assert code == 2 and "config file not found; hopkit ships a pipeline config named 'oner'" in err
    assert "`hopkit run oner ...`" in err
    code, _, err = hopkit(capsys, "--db", db, "run", "onr", "--llm", llm)
    assert code == 2 and "onr" in err and "oner" in err and "searchain" in err
    code, _, err = hopkit(capsys, "--db", db, "ingest", "sample", "some/file.jsonl")
    assert code == 2 and "hopkit ingest jsonl some/file.jsonl" in err


def test_the_first_line_says_how_many_questions_at_a_time_and_why(db: str, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 29 item 2: batch_size was YAML-only, and an in-process model ran one at a time silently."""
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "4")[0] == 0
    llm = scripted(tmp_path / "scripted.yaml", ["Velmora"] * 4)
    code, out, err = hopkit(capsys, "--db", db, "run", "nor", "--llm", llm, "--quiet", "--limit", "2")
    assert code == 0, err
    assert out.splitlines()[0].endswith("2 question(s), 0 already done, 2 to answer, 1 at a time (an in-process "
                                        "model answers one question at a time; batch_size 10 applies to a model "
                                        "server)")
    with serve_fake_openai(lambda prompt: "Velmora") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        code, out, err = hopkit(capsys, "--db", db, "run", "nor", "--llm", "openai-compatible", "--batch-size", "3",
                                "--quiet")
    assert code == 0, err
    assert out.splitlines()[0].endswith("4 question(s), 0 already done, 4 to answer, 3 at a time")
    code, _, err = hopkit(capsys, "--db", db, "run", "nor", "--llm", llm, "--batch-size", "0")
    assert code == 2 and "batch_size" in err


def test_a_rerun_that_fails_again_keeps_exit_0_while_the_run_holds_answers(db: str, monkeypatch: pytest.MonkeyPatch,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 29 item 3: a resumed run with answers exited 1 because its one retried question failed again,
    and every failure was printed twice; an empty answer said "a rerun retries it"."""
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "3")[0] == 0
    silent_on = Store.connect(db).queries("sample")[1].text  # the model writes nothing to this question, every time
    with serve_fake_openai(lambda prompt: "" if silent_on in prompt else "Velmora") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        code, _, err = hopkit(capsys, "--db", db, "run", "nor", "--llm", "openai-compatible", "--quiet")
        assert code == 0
        assert "1 of 3 question(s) attempted failed: 1 EmptyAnswerError (the model wrote no answer; decoding is " \
               "greedy, so a rerun asks again and gets the same reply" in err
        assert err.count("EmptyAnswerError") == 2  # the summary's count and its first error, no per-question line
        log_file = Path(err.split("Every failure is in ")[1].split()[0])
        assert log_file.is_file() and "EmptyAnswerError" in log_file.read_text(encoding="utf-8")
        code, out, err = hopkit(capsys, "--db", db, "run", "nor", "--llm", "openai-compatible", "--quiet")
        assert "2 already done, 0 answered now, 1 failed" in out
        assert code == 0 and "the run holds 2 answer(s)" in err
        assert "--keep-failed leaves it stored" in err
        code, out, err = hopkit(capsys, "--db", db, "run", "nor", "--llm", "openai-compatible", "--quiet",
                                "--keep-failed")
    assert "3 already done (1 of them failed, kept by --keep-failed), 0 to answer" in out
    assert "3 already done, 0 answered now, 0 failed, 1 failed before and kept" in out
    assert code == 0 and err == ""


def test_exit_1_only_when_the_run_holds_no_answer() -> None:
    outcome = {"already_done": 0, "finished": 0, "failed": 2, "failures": {"LLMServerError": 2},
               "first_error": "LLMServerError: 503"}
    assert run_exit_code(outcome) == 1
    assert run_exit_code({**outcome, "already_done": 1}) == 0
    assert run_exit_code({**outcome, "failed": 0, "failures": {}}) == 0


def migres_without_evidence(tmp_path: Path) -> MIGRESGenerationPipeline:
    factory = DBConnection(f"sqlite:///{tmp_path / 'm.db'}").get_session_factory()
    paragraphs = (Paragraph(0, "Ada Quill", "Ada Quill was born in Tarsk."),
                  Paragraph(1, "Tarsk", "Tarsk is a port city."))
    queries = tuple(Query(f"q{i}", f"Where was Ada Quill born ({i})?", ("Tarsk",)) for i in range(6))
    Store(factory).add_corpus(Corpus("toy", paragraphs, queries))
    answer = '{"answer": {"text": "Tarsk", "confidence": 5}, "explanation": "", "missing_information": ""}'
    # the relevance judge reads log P(" yes") - log P(" no") = -5: below the default δ = 3.0, nothing is kept
    llm = ScriptedLLM(lambda prompt: answer, scores={" yes": -5.0, " no": 0.0})
    retrieval = BM25RetrievalPipeline(factory, "bm25-migres", index_root=tmp_path / "idx", k1=0.9, b=0.4)
    return MIGRESGenerationPipeline(factory, "migres", llm, retrieval, hits_per_query=2, max_iterations=2)


def test_migres_that_keeps_no_passage_says_so_during_and_after_the_run(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 29 item 4: with the shipped δ and an LLM judge every question kept no passage, without a word."""
    with caplog.at_level(logging.WARNING):
        outcome = migres_without_evidence(tmp_path).run(progress=False)
    assert (outcome["finished"], outcome["without_evidence"]) == (6, 6)
    during = [r.getMessage() for r in caplog.records if "kept no paragraph" in r.getMessage()]
    assert len(during) == 1 and "5 of the first 5 questions" in during[0]
    assert "relevance_threshold (δ = 3)" in during[0] and "hopkit calibrate migres --dataset" in during[0]
    from hopkit.cli.run import _warn_without_evidence

    _warn_without_evidence(outcome)
    assert "6 of the 6 question(s) answered now kept no paragraph" in capsys.readouterr().err


def test_the_python_facade_warns_and_returns_the_name_a_resumed_run_keeps(
        db: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 29 item 5: `name="ircot_smol"` returned already_done from the CLI's run, naming neither."""
    factory = DBConnection(db).get_session_factory()
    Store(factory).add_corpus(Corpus("toy", (Paragraph(0, "Tarsk", "Tarsk is a port."),),
                                     (Query("q0", "Where is Tarsk?", ("north",)),)))
    first = NoRGenerationPipeline(factory, "nor", ScriptedLLM(["north"]))
    assert first.run(progress=False)["name"] == "nor"
    with caplog.at_level(logging.WARNING):
        again = NoRGenerationPipeline(factory, "nor_smol", ScriptedLLM(["north"])).run(progress=False)
    assert again["name"] == "nor" and again["already_done"] == 1
    assert any("first run as 'nor', the name it keeps" in r.getMessage() and "'nor_smol'" in r.getMessage()
               for r in caplog.records)


def test_a_library_that_prints_its_own_warnings_prints_each_once() -> None:
    """Issue 29 item 1: offline, each huggingface_hub retry was printed twice (its handler and hopkit's)."""
    code = ("import logging, huggingface_hub\n"
            "from hopkit.cli.console import configure_console\n"
            "configure_console(False)\n"
            "logging.getLogger('huggingface_hub.utils._http').warning('retrying in 1s')\n"
            "logging.getLogger('hopkit.pipelines.runner').warning('a question', extra={'question': 'q1'})\n"
            "logging.getLogger('hopkit.pipelines.runner').warning('a run')\n")
    process = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert process.returncode == 0, process.stderr
    assert process.stderr.count("retrying in 1s") == 1
    assert "a question" not in process.stderr and process.stderr.count("a run") == 1


@pytest.fixture()
def many_runs(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Iterator[str]:
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "2")[0] == 0
    for number in range(5):  # more runs than are compared pairwise: each is compared with one reference
        llm = scripted(tmp_path / f"wrong-{number}.yaml", [f"Nowhere{number}"] * 2)
        assert hopkit(capsys, "--db", db, "run", "nor", "--llm", llm, "--name", f"nor-{number}", "--quiet")[0] == 0
    yield db


def test_with_every_f1_at_zero_no_run_is_called_the_highest(many_runs: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 29 item 6: with every F1 at 0 the report still named one run "the highest F1"."""
    code, _, err = hopkit(capsys, "--db", many_runs, "report", "--out", str(tmp_path / "report"))
    assert code == 0, err
    markdown = (tmp_path / "report" / "comparison.md").read_text(encoding="utf-8")
    assert "highest F1)" not in markdown and "each against nor-0 (the first run: every run has F1 0.0)" in markdown


def test_run_help_lists_the_llm_names_and_the_batch_size(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    for name in ("smollm2", "qwen2.5-coder-1.5b", "openai-compatible", "docs/models.md", "--batch-size"):
        assert name in help_text


@pytest.mark.parametrize("pipeline, title, reason", [("nor", "NoR", "NoR retrieves nothing"),
                                                     ("migres", "MIGRES", "MIGRES retrieves hits_per_query passages")])
def test_top_k_on_a_method_without_a_k_is_refused_naming_the_method(db: str, tmp_path: Path, pipeline: str,
                                                                     title: str, reason: str,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 30, "no silent option": --top-k on NoR or MIGRES was ignored, and the run id did not change, so a
    user resumed an old run believing K had changed."""
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "2")[0] == 0
    llm = scripted(tmp_path / "scripted.yaml", ["Velmora"] * 2)
    code, out, err = hopkit(capsys, "--db", db, "run", pipeline, "--llm", llm, "--top-k", "4", "--quiet")
    assert code == 2 and out == ""
    assert err == f"hopkit: error: top_k (4) does not apply to {title}: {reason}" + err.split(reason, 1)[1]
    assert "leave out --top-k / top_k" in err and Store.connect(db).runs() == []

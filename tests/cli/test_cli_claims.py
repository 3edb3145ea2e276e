"""``hopkit claims``: a method's declared paper claims checked on a real SQLite store whose results are
written directly (no model: each run's answers are chosen, so the paired statistics are known by hand)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable

import pytest

from hopkit.claim_checks import claim_pages, declared_claims
from hopkit.config import named_configs
from hopkit.pipelines.experiments import experiment_names
from hopkit.methods.paper_claims import claims_from_table
from hopkit.methods.registry import entries
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store
from hopkit.usage import Usage

from .running import StoreCli

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"


class Hopkit(StoreCli):
    def __init__(self, db: str, capsys: pytest.CaptureFixture[str]) -> None:
        super().__init__(db, capsys)
        self.store = Store.connect(db)

    def add_run(self, name: str, dataset: str, right: Iterable[int], llm: str = "qwen") -> str:
        """A run of every question of ``dataset``, right on the questions ``right`` (by stored order)."""
        spec = {"model_id": llm, "context_length": 4096}
        run = self.store.ensure_run(RunSpec(name, name, dataset, {"answers": sorted(right), "llm": spec}))
        for i, query in enumerate(self.store.queries(dataset)):
            answer = query.answers[0] if i in set(right) else "no idea"
            self.store.record_result(run.run_id, QueryResult(query.id, answer, (), {}, Usage(1.0, {})))
        return run.run_id


@pytest.fixture
def hopkit(db: str, capsys: pytest.CaptureFixture[str]) -> Hopkit:
    tool = Hopkit(db, capsys)
    for dataset in ("hotpotqa", "musique"):  # the claims name datasets by these names
        tool.ok("ingest", "jsonl", str(SAMPLE), "--name", dataset, "--limit", "12")
    return tool


def row(out: str, dataset: str, metric: str = "EM") -> list[str]:
    cells = [re.split(r"\s{2,}", line.strip()) for line in out.splitlines()]
    found = [row for row in cells if len(row) > 3 and row[1] == metric and row[2] == dataset]
    assert len(found) == 1, out
    return found[0]


def test_claims_are_checked_paired_and_worded_by_the_rule(hopkit: Hopkit, tmp_path: Path) -> None:
    hopkit.add_run("self-ask-hotpotqa", "hotpotqa", range(12))  # the benchmarks' names: NAME-DATASET
    hopkit.add_run("react-shao-hotpotqa", "hotpotqa", {0, 1})
    hopkit.add_run("self-ask", "musique", range(6))  # `hopkit run NAME`'s: NAME
    hopkit.add_run("react-shao", "musique", {0})
    code, out, err = hopkit("claims", "self-ask")
    assert code == 0, err
    # HotpotQA: 10 won, 0 lost: McNemar p = 2 / 2**10; the paper puts Self-Ask above ReAct: holds
    assert row(out, "hotpotqa")[3:9] == ["12", "100.0", "16.7", "+83.3 [+58.3, +100.0]", "10/0", "0.002"]
    assert row(out, "hotpotqa")[-2:] == ["above (MIGRES, Table 3)", "holds"]
    # the anytime-valid columns, in stored order: two ties, then ten wins take the capital to
    # (1.5**10 + 0.5**10) / 2 = 28.8 >= 20 at n = 12 (tests/evaluation/test_anytime.py), p = 1 / 28.8
    assert row(out, "hotpotqa")[-4:-2] == ["0.035", "12"] and row(out, "hotpotqa")[-5].startswith("[+")
    # MuSiQue: 5 won, 0 lost: p = 2 / 2**5 = 0.0625, not below 0.05
    assert row(out, "musique")[-2:] == ["above (MIGRES, Table 3)", "cannot tell at n = 12"]
    assert row(out, "musique")[-6] == "0.062"
    assert row(out, "musique")[-3] == "-"  # 5 wins: (1.5**5 + 0.5**5) / 2 = 3.8, not decided either
    assert row(out, "pooled: hotpotqa, musique")[3] == "24" and row(out, "pooled: hotpotqa, musique")[-1] == "holds"
    assert row(out, "hotpotqa", "LLM Acc")[-1] == "not judged"  # no judge's verdicts stored
    assert "5 checks: 2 hold, 0 reversed, 1 cannot tell, 2 not judged" in out
    assert "not in the store, not checked: 2wikimultihopqa, strategyqa" in out
    saved = json.loads((tmp_path / "claims" / "self-ask.json").read_text(encoding="utf-8"))
    assert [c["verdict"] for c in saved["checks"] if c["metric"] == "em"] == ["holds", "cannot tell at n = 12", "holds"]
    assert [c["decided_at"] for c in saved["checks"] if c["metric"] == "em"][:2] == [12, None]
    assert "| self-ask vs react-shao | EM | hotpotqa | 12 |" in (tmp_path / "claims" / "self-ask.md").read_text()


def test_a_difference_against_the_paper_is_reversed_and_a_missing_run_named(hopkit: Hopkit) -> None:
    hopkit.add_run("searchain", "hotpotqa", set())
    hopkit.add_run("nor", "hotpotqa", range(12))
    hopkit.add_run("oner", "hotpotqa", range(12), llm="another model")  # not paired with searchain's model
    code, out, err = hopkit("claims", "searchain", "--datasets", "hotpotqa", "--out", "elsewhere")
    assert code == 0, err
    lines = {line.split("  ")[0].strip(): line for line in out.splitlines() if " Cover-EM " in line}
    assert lines["searchain vs nor"].rstrip().endswith("reversed")
    assert lines["searchain vs oner"].rstrip().endswith("not run")
    assert ("no run of oner on hotpotqa with searchain's model: `hopkit run oner --dataset hotpotqa --llm ...`"
            in out)
    assert Path("elsewhere", "searchain.md").exists()


def test_the_same_model_file_through_the_transformers_backend_is_the_same_model(hopkit: Hopkit) -> None:
    """DRAGIN reads the attention of the GGUF file the llama.cpp backend runs for the other methods."""
    hopkit.add_run("dragin-hotpotqa", "hotpotqa", range(12), llm="qwen@transformers")
    hopkit.add_run("flare-hotpotqa", "hotpotqa", {0})
    hopkit.ok("ingest", "jsonl", str(SAMPLE), "--name", "2wikimultihopqa", "--limit", "12")
    hopkit.add_run("dragin", "2wikimultihopqa", range(12), llm="qwen@transformers")
    hopkit.add_run("flare", "2wikimultihopqa", {0}, llm="qwen-7b")  # another file: not paired
    code, out, err = hopkit("claims", "dragin", "--datasets", "hotpotqa", "2wikimultihopqa")
    assert code == 0, err
    assert row(out, "hotpotqa")[3:6] == ["12", "100.0", "8.3"] and row(out, "hotpotqa")[-1] == "holds"
    assert "dragin-hotpotqa ran the model file through transformers and flare-hotpotqa through another backend" in out
    assert "no run of flare on 2wikimultihopqa with dragin's model" in out


def rows_by_claim(out: str, dataset: str) -> dict[str, list[str]]:
    """The EM rows of ``dataset``, by their claim (``search-r1 vs oner``)."""
    cells = [re.split(r"\s{2,}", line.strip()) for line in out.splitlines()]
    return {row[0]: row for row in cells if len(row) > 3 and row[1] == "EM" and row[2] == dataset}


def test_search_r1_checks_its_paper_s_table_2_its_baselines_orderings_too(hopkit: Hopkit, tmp_path: Path) -> None:
    """The search agent's template is addressed by its run name; the Search-R1 paper's RAG above IRCoT and
    above Search-o1 are its claims as well (hopkit's OneR is the paper's RAG)."""
    hopkit.add_run("search-r1-hotpotqa", "hotpotqa", range(12))
    hopkit.add_run("oner-hotpotqa", "hotpotqa", range(6))
    hopkit.add_run("ircot-hotpotqa", "hotpotqa", {0})
    hopkit.add_run("search-o1-hotpotqa", "hotpotqa", set())
    code, out, err = hopkit("claims", "search-r1", "--datasets", "hotpotqa")
    assert code == 0, err
    rows = rows_by_claim(out, "hotpotqa")
    assert set(rows) == {"search-r1 vs oner", "search-r1 vs ircot", "search-r1 vs search-o1", "oner vs ircot",
                         "oner vs search-o1"}
    # search-r1 6 won, 0 lost against oner: p = 2 / 2**6 = 0.031; Table 2 at 3B: 0.324 above 0.255
    assert rows["search-r1 vs oner"][3:6] == ["12", "100.0", "50.0"]
    assert rows["search-r1 vs oner"][-2:] == ["above (Search-R1 v5, Table 2, Qwen2.5-3B)", "holds"]
    assert rows["oner vs search-o1"][3:6] == ["12", "50.0", "0.0"] and rows["oner vs search-o1"][-1] == "holds"
    assert rows["oner vs ircot"][-2:] == ["above (Search-R1 v5, Table 2, Qwen2.5-3B)", "cannot tell at n = 12"]
    assert "not in the store, not checked: 2wikimultihopqa, bamboogle, nq, popqa, triviaqa" in out
    assert "| oner vs ircot | EM | hotpotqa | 12 |" in (tmp_path / "claims" / "search-r1.md").read_text()


def test_search_o1_checks_its_paper_s_table_3_against_oner_and_nor(hopkit: Hopkit) -> None:
    hopkit.add_run("search-o1", "hotpotqa", range(12))
    hopkit.add_run("oner", "hotpotqa", range(12))
    hopkit.add_run("nor", "musique", range(12))
    hopkit.add_run("search-o1", "musique", set())
    code, out, err = hopkit("claims", "search-o1")
    assert code == 0, err
    hotpotqa, musique = rows_by_claim(out, "hotpotqa"), rows_by_claim(out, "musique")
    assert hotpotqa["search-o1 vs oner"][-2:] == ["above (Search-o1, Table 3, QwQ-32B)", "cannot tell at n = 12"]
    assert hotpotqa["search-o1 vs nor"][-1] == "not run" and musique["search-o1 vs oner"][-1] == "not run"
    assert musique["search-o1 vs nor"][3:6] == ["12", "0.0", "100.0"] and musique["search-o1 vs nor"][-1] == "reversed"
    assert "no run of nor on hotpotqa with search-o1's model" in out


def test_the_search_agent_s_claims_are_on_search_r1_s_page() -> None:
    pages = claim_pages()
    assert pages["search-r1"] == list(entries()["search-agent"].claims) and "search-agent" not in pages
    assert pages["search-o1"] == list(entries()["search-o1"].claims)
    assert {claim.subject for claim in pages["search-r1"]} == {"search-r1", "oner"}
    assert declared_claims("search-r1") == pages["search-r1"]


def test_an_unknown_subject_lists_the_methods_with_claims(hopkit: Hopkit) -> None:
    code, _, err = hopkit("claims", "nor")
    assert code == 2 and "nor" in err and "migres" in err and "searchain" in err


def test_a_table_makes_one_claim_per_direction_and_none_where_level() -> None:
    claims = claims_from_table("a", "b", "em", "T", {"x": (2.0, 1.0), "y": (1.0, 2.0), "z": (1.0, 1.0), "w": (3, 1)})
    assert [(c.direction, c.datasets) for c in claims] == [("above", ("x", "w")), ("below", ("y",))]


def test_every_declared_claim_names_runs_hopkit_can_make() -> None:
    runnable = {*entries(), *named_configs("pipelines"), *experiment_names()}
    for entry in entries().values():
        for claim in entry.claims:
            assert {claim.subject, claim.baseline} <= runnable, claim
            assert not claim.paper or claim.paper in runnable, claim

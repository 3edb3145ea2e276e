"""Every registered method from the command line with the real SmolLM2 GGUF (through the transformers
backend for a method that needs what llama.cpp lacks: DRAGIN's attention), a real BM25 index and a real
SQLite store: each run stores its questions with typed traces, and a second run resumes without redoing
any. The methods are the registry's: a new one runs here with its defaults until it gets quicker options
in ``BASELINES``; the seeds' baselines and the 2025 search agents run in each of their forms there.

A 135M model answers badly; what is checked is that each loop survives its output (an empty
answer is a failed question, nothing else is) and records what it did.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
import yaml

from hopkit.campaign.method_models import TWINS
from hopkit.pipelines.configs import instantiate_pipeline_config
from hopkit.cli import main
from hopkit.config import load_llm, load_yaml, named_config_path
from hopkit.llm.capabilities import capabilities_of
from hopkit.methods.registry import entries
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from hopkit.traces import Trace

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
BASELINES = {
    "nor": {},
    "oner": {"k": 2},
    "ircot": {"max_steps": 1, "k_per_step": 2, "paragraph_budget": 4, "max_paragraph_words": 100,
              "generation_max_tokens": 32, "reader_max_tokens": 32},
    "migres": {"max_iterations": 1, "hits_per_query": 2, "max_new_queries": 1, "passages_per_leaf_call": 2,
               "knowledge_prompting": False, "nli_check": False, "max_tokens": 48},
    "searchain": {"max_rounds": 1, "chain_max_tokens": 48, "final_max_tokens": 32},
    "iter-retgen": {"iterations": 2, "k": 2, "max_tokens": 48, "demonstrations": None},
    "self-ask": {"k": 2, "max_follow_ups": 2, "max_tokens": 48},
    "react": {"max_turns": 3, "k": 1, "max_tokens": 48},
    "react-shao": {"k": 2, "max_follow_ups": 2, "max_tokens": 48},
    "flare": {"k": 2, "max_sentences": 3, "look_ahead_tokens": 32, "demonstrations": None},
    "alce": {"reader": "summ", "hits": 3, "k": 2, "condense_max_tokens": 32, "max_tokens": 48},
    "alce-rerank": {"reader": "rerank", "hits": 3, "k": 2, "samples": 2, "max_tokens": 48},
    "search-o1": {"k": 2, "max_searches": 2, "max_turns": 2, "max_tokens": 48, "condense_tokens": 32},
    "search-r1": {"template": "search-r1", "max_turns": 2, "max_tokens": 48},
    "r1-searcher": {"template": "r1-searcher", "max_turns": 2, "max_tokens": 48},
    "adaptive-rag": {"fallback": "B"},
    "dragin": {"k": 2, "max_length": 40, "max_generations": 4, "shots": 2},
}
METHOD_OF = {"alce-rerank": "alce", "search-r1": "search-agent", "r1-searcher": "search-agent"}  # a baseline that is another reader of a registered method
# the shipped configs of NoR, OneR and IRCoT stay zero-shot, without a declared experiment
ZERO_SHOT_CONFIGS = {"nor", "oner", "ircot"}


def smoke_runs() -> list[str]:
    """The runs below: those of ``BASELINES``, then every registered method none of them runs (its defaults)."""
    covered = {METHOD_OF.get(name, name) for name in BASELINES}
    return sorted(BASELINES) + sorted(set(entries()) - covered)


@functools.cache
def llm_for(method: str) -> str:
    """The SmolLM2 config ``method`` runs with: llama.cpp, or the same GGUF through the transformers backend
    when the method needs a capability llama.cpp lacks."""
    if set(entries()[method].needs) <= capabilities_of(load_llm("smollm2")):
        return "smollm2"
    return TWINS["smollm2"]


def hopkit(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("method", sorted(set(BASELINES) - ZERO_SHOT_CONFIGS))
def test_the_shipped_config_of_each_baseline_builds(method: str) -> None:
    path = named_config_path("pipelines", "alce-vanilla" if method == "alce" else method)
    spec = load_yaml(path)
    assert "experiment" in spec  # the paper's settings, by dataset
    config = instantiate_pipeline_config({**spec, "dataset": "hotpotqa"}, str(path))
    assert config.name == path.stem and hasattr(config, "build")


@pytest.mark.parametrize("method", smoke_runs())
def test_a_baseline_runs_and_resumes_from_the_command_line(method: str, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    db = f"sqlite:///{tmp_path / 'baselines.db'}"
    code, _, err = hopkit(capsys, "--db", db, "ingest", "jsonl", str(SAMPLE), "--name", "qs", "--limit", "2")
    assert code == 0, err
    config = tmp_path / f"{method}.yaml"
    options = BASELINES.get(method, {})
    method = METHOD_OF.get(method, method)
    config.write_text(yaml.safe_dump({"method": method, "name": method, "llm": llm_for(method),
                                      "retrieval_pipeline_name": "bm25", **options}), encoding="utf-8")
    code, text, err = hopkit(capsys, "--db", db, "run", str(config), "--dataset", "qs", "--quiet")
    counts = re.search(r"2 questions, 0 already done, (\d) answered now, (\d) failed", text)
    assert counts is not None, text + err
    answered, failed = int(counts[1]), int(counts[2])
    assert answered + failed == 2 and (failed == 0 or "EmptyAnswerError" in err), err
    store = Store(DBConnection(db).get_session_factory())
    [run] = [r for r in store.runs("qs") if r.method == method]
    entry = entries()[method]
    for result in store.results(run.run_id):
        steps = Trace.from_result_trace(result.trace).steps
        assert steps and all(entry.payload(step) is not None for step in steps)
        assert result.usage.llm_calls == sum(step.llm_calls for step in steps) >= 1
    code, text, err = hopkit(capsys, "--db", db, "run", str(config), "--dataset", "qs", "--quiet")
    assert f"2 questions, {answered} already done" in text, text + err

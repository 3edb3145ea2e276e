"""A run plan pickles, and another process rebuilds the same method from it (issue 30, "one lifecycle"; the run
plan of issue 74: top_k folded into the options, the executor carried)."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.protocol import Method
from hopkit.methods.registry import BUILT_IN, entries
from hopkit.pipelines.generation.registered import method_pipeline
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

pytestmark = pytest.mark.unit

OWN = [name for name, entry in entries().items() if entry.build.__module__ in BUILT_IN]
SCRIPTED_LLM = ("_target_: hopkit.llm.fake.ScriptedLLM\nscript: " + json.dumps(["So the answer is: Tarsk."] * 50)
                + "\nscores: {' yes': 0.0, ' no': -2.0}\ntoken_scores: -0.05\nentropies: 0.5\n")

IN_ANOTHER_PROCESS = """
import pickle, sys
from hopkit.records import Query
from hopkit.store.connection import DBConnection

spec = pickle.loads(open(sys.argv[1], "rb").read())
method = spec.build(DBConnection(sys.argv[2]).get_session_factory())
print(method.name, method.generate(Query("q9", "Where was Ada Quill born?")).text)
"""


@pytest.fixture()
def factory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    (tmp_path / "configs" / "llm").mkdir(parents=True)
    (tmp_path / "configs" / "llm" / "scripted.yaml").write_text(SCRIPTED_LLM, encoding="utf-8")
    session_factory = DBConnection(f"sqlite:///{tmp_path / 'spec.db'}").get_session_factory()
    Store(session_factory).add_corpus(Corpus("toy", (
        Paragraph(1, "Ada Quill", "Ada Quill was an engineer born in Tarsk."),
        Paragraph(2, "Tarsk", "Tarsk is a port city on the northern coast.")),
        (Query("q1", "Where was Ada Quill born?", ("Tarsk",)),)))
    return session_factory


def pipeline_of(name: str, session_factory, **options):  # type: ignore[no-untyped-def]
    retrieval = [BM25RetrievalPipeline(session_factory, "bm25", k1=0.9, b=0.4)] if entries()[name].retrieves else []
    return method_pipeline(name)(session_factory, f"spec-{name}", "scripted", *retrieval, dataset="toy", **options)


@pytest.mark.parametrize("name", OWN)
def test_a_pickled_spec_rebuilds_the_same_run(name: str, factory) -> None:  # type: ignore[no-untyped-def]
    options = {"reader": "cot"} if name in ("nor", "oner") else {}
    pipeline = pipeline_of(name, factory, **options)
    top_k = 3 if entries()[name].top_k else None
    spec = pickle.loads(pickle.dumps(pipeline.method_spec(top_k)))
    assert spec == pipeline.method_spec(top_k)
    rebuilt = spec.pipeline(factory)
    assert rebuilt.run_spec().run_id == rebuilt.run_spec(top_k).run_id == pipeline.run_spec(top_k).run_id
    plain = pickle.loads(pickle.dumps(pipeline.method_spec())).pipeline(factory)
    assert plain.run_spec().run_id == pipeline.run_spec().run_id
    method = spec.build(factory)
    assert isinstance(method, Method) and method.name == name


def test_another_process_answers_with_the_rebuilt_method(tmp_path: Path, factory) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "oner.pickle").write_bytes(pickle.dumps(pipeline_of("oner", factory, k=1).method_spec()))
    process = subprocess.run([sys.executable, "-c", IN_ANOTHER_PROCESS, str(tmp_path / "oner.pickle"),
                              f"sqlite:///{tmp_path / 'spec.db'}"], cwd=tmp_path, capture_output=True, text=True,
                             timeout=300, env={**os.environ, "HOPKIT_HOME": str(tmp_path / "home")})
    assert process.returncode == 0, process.stderr
    assert process.stdout.strip().splitlines()[-1] == "oner Tarsk"


def test_an_option_pinned_to_what_a_run_id_leaves_out_reaches_the_rebuilt_method(factory) -> None:  # type: ignore[no-untyped-def]
    """OneR's ``query: question`` (the saved runs' query, left out of their identity since the fix made
    ``no_wh_words`` the default): a worker's method must query as the run id says, not as the default does."""
    pipeline = pipeline_of("oner", factory, query="question")
    rebuilt = pickle.loads(pickle.dumps(pipeline.method_spec())).pipeline(factory)
    assert rebuilt.config.query == "question"
    assert rebuilt.run_spec().run_id == pipeline.run_spec().run_id != pipeline_of("oner", factory).run_spec().run_id


def test_a_spec_needs_the_llm_by_name(factory) -> None:  # type: ignore[no-untyped-def]
    pipeline = method_pipeline("nor")(factory, "x", ScriptedLLM(["Tarsk"]), dataset="toy")
    with pytest.raises(ConfigError, match="a method spec needs the LLM by config name"):
        pipeline.method_spec()
    with pytest.raises(ConfigError, match="top_k \\(2\\) does not apply to NoR"):
        pipeline_of("nor", factory).method_spec(2)


@pytest.mark.parametrize("name", OWN)
def test_threads_answer_with_the_method_the_spec_builds(name: str, factory,  # type: ignore[no-untyped-def]
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The threads of this process get the method from the same picklable spec Ray's workers get, built
    with the model this process loaded (one meter): an option the spec lost would change every run."""
    from hopkit.executors.choice import executor_choice
    from hopkit.pipelines.plan import RunPlan

    built = recorded_builds(monkeypatch)
    pipeline = pipeline_of(name, factory)
    top_k = 3 if entries()[name].top_k else None
    executor = pipeline.executor(executor_choice("threads"), top_k, "toy")
    (spec, llm, retrieval), = built
    assert pickle.loads(pickle.dumps(spec)) == spec == pipeline.method_spec(top_k)
    assert llm is pipeline._llm()  # the model loaded once, metered once
    assert retrieval is pipeline.retrieval_pipeline  # the index this process holds, not built again
    assert executor.method.name == name


def recorded_builds(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, object, object]]:
    """Every ``RunPlan.build`` call from now on: the spec, the model and the retrieval pipeline handed in."""
    from hopkit.pipelines.plan import RunPlan

    built: list[tuple[object, object, object]] = []
    build = RunPlan.build

    def recording(spec: RunPlan, session_factory, *, llm=None, retrieval=None,  # type: ignore[no-untyped-def]
                  warm=True):
        built.append((spec, llm, retrieval))
        return build(spec, session_factory, llm=llm, retrieval=retrieval, warm=warm)

    monkeypatch.setattr(RunPlan, "build", recording)
    return built


def test_threads_build_a_loaded_model_s_method_from_the_spec_too(factory,  # type: ignore[no-untyped-def]
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A pipeline given a model object (which no worker can be sent) still builds its threads' method by the
    spec's one function, with that model; only Ray refuses it."""
    from hopkit.executors.choice import executor_choice

    built = recorded_builds(monkeypatch)
    pipeline = method_pipeline("nor")(factory, "x", ScriptedLLM(["Tarsk"]), dataset="toy")
    executor = pipeline.executor(executor_choice("threads"), None, "toy")
    (spec, llm, _), = built
    assert spec == pipeline.run_plan() and llm is pipeline._llm()
    assert executor.method.generate(Query(id="q", text="Who?")).text == "Tarsk"
    with pytest.raises(ConfigError, match="a method spec needs the LLM by config name"):
        pipeline.executor(executor_choice("ray"), None, "toy")


def test_top_k_is_folded_into_the_option_it_names(factory) -> None:  # type: ignore[no-untyped-def]
    """The plan holds no top_k of its own: IRCoT's ``top_k`` is its ``k_per_step``, so a worker's method
    and the run id cannot disagree on K."""
    pipeline = pipeline_of("ircot", factory)
    plan = pipeline.run_plan(3)
    assert plan.options["k_per_step"] == 3 and not hasattr(plan, "top_k")
    assert pipeline.run_plan().options["k_per_step"] == pipeline.config.k_per_step != 3
    assert plan.build(factory, warm=False).config.k_per_step == 3


def test_an_assembly_folds_the_entrance_s_top_k_into_the_config(factory) -> None:  # type: ignore[no-untyped-def]
    from hopkit.pipelines.assembly import Changes, assemble

    spec = {"method": "ircot", "name": "a", "llm": "scripted", "dataset": "toy", "top_k": 5}
    assembly = assemble(spec, "a.yaml", lambda: factory, Changes(top_k=2))
    assert assembly.top_k == assembly.config.top_k == 2
    assert assembly.plan().options["k_per_step"] == 2
    own = assemble(spec, "a.yaml", lambda: factory)
    assert own.top_k == 5 and own.plan().options["k_per_step"] == 5
    assert assembly.pipeline.run_spec().run_id == own.pipeline.run_spec(2).run_id
    with pytest.raises(ConfigError, match="top_k \\(2\\) does not apply to NoR"):
        assemble({"method": "nor", "name": "n", "llm": "scripted", "dataset": "toy"}, "n.yaml", lambda: factory,
                 Changes(top_k=2))

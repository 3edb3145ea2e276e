"""A method added from outside hopkit, as docs/adding-a-method.md shows: one package and one entry point.

The toy package (:mod:`.toy_method`) is written into a temporary folder with a
``toy_method-0.1.dist-info`` that declares its entry point, and that folder is put on
``PYTHONPATH``. Every check runs in a new process: from Python (the facade the registry
makes, its signature), from a YAML file naming ``method: toy``, from the command line by
name, through the contract test and the registry's checks, and in the HTML report. No file
of the repository is written.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .toy_method import ENTRY_POINTS, METADATA, PACKAGE, TEMPLATE

pytestmark = [pytest.mark.unit, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]

SETUP_STORE = """
import sys
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

store = Store(DBConnection(sys.argv[1]).get_session_factory())
store.add_corpus(Corpus("toy", (
    Paragraph(10, "Velmora Ironworks", "Velmora Ironworks was founded by Ada Quill in 1871."),
    Paragraph(11, "Ada Quill", "Ada Quill was an engineer born in Tarsk."),
    Paragraph(12, "Tarsk", "Tarsk is a port city on the northern coast."),
), (Query("q1", "Where was Ada Quill born?", ("Tarsk",)), Query("q2", "Who founded Velmora Ironworks?", ("Ada Quill",)))))
"""

FROM_PYTHON = """
import inspect, json, sys
from hopkit.pipelines.generation.registered import method_pipeline
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.llm.fake import ScriptedLLM
from hopkit.store.connection import DBConnection

Toy = method_pipeline("toy")
factory = DBConnection(sys.argv[1]).get_session_factory()
pipeline = Toy(factory, "toy-python", ScriptedLLM(lambda prompt: "Tarsk"), BM25RetrievalPipeline(factory, "bm25"), k=1)
outcome = pipeline.run(progress=False)
print(json.dumps({"class": Toy.__name__, "signature": list(inspect.signature(Toy).parameters),
                  "finished": outcome["finished"], "k3": pipeline.method_options(3)["k"]}))
"""


@pytest.fixture(scope="module")
def toy_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the toy package and the metadata of its entry point."""
    folder = tmp_path_factory.mktemp("toy-site")
    (folder / "toy_method").mkdir()
    (folder / "toy_method" / "__init__.py").write_text(PACKAGE, encoding="utf-8")
    (folder / "toy_method" / "report.html.j2").write_text(TEMPLATE, encoding="utf-8")
    info = folder / "toy_method-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(METADATA, encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    configs = folder / "work" / "configs" / "llm"
    configs.mkdir(parents=True)
    (configs / "says-tarsk.yaml").write_text("_target_: hopkit.llm.fake.ScriptedLLM\nscript: " +
                                             json.dumps(["Tarsk"] * 20) + "\n", encoding="utf-8")
    return folder


def run(toy_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in the toy's working folder, with the toy package importable."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(toy_path), os.environ.get("PYTHONPATH", "")]),
           "HOPKIT_HOME": str(toy_path / "home")}
    env.pop("HOPKIT_DB_URL", None)
    process = subprocess.run([sys.executable, *args], cwd=toy_path / "work", env=env, capture_output=True,
                             text=True, timeout=600)
    assert process.returncode == 0, process.stdout + process.stderr
    return process


def hopkit(toy_path: Path, db: str, *args: str) -> str:
    return run(toy_path, "-m", "hopkit.cli", "--db", db, *args).stdout


def question_pages(report: Path) -> str:
    """The question pages of an HTML report, unpacked from its gzipped chunks."""
    pages: list[str] = []
    for script in report.rglob("*.js"):
        for packed in re.findall(r'hopkitChunk\(\d+, "([A-Za-z0-9+/=]+)"\);', script.read_text(encoding="utf-8")):
            pages.extend(json.loads(gzip.decompress(base64.b64decode(packed))))
    return "".join(pages)


def repository_state() -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout


def test_a_method_from_outside_runs_from_python_yaml_and_the_command_line(toy_path: Path) -> None:
    before = repository_state()
    db = f"sqlite:///{toy_path / 'toy.db'}"
    run(toy_path, "-c", SETUP_STORE, db)

    python = json.loads(run(toy_path, "-c", FROM_PYTHON, db).stdout.strip().splitlines()[-1])
    assert python["class"] == "ToyGenerationPipeline" and python["finished"] == 2 and python["k3"] == 3
    assert {"k", "cue", "top_k", "retrieval_pipeline"} <= set(python["signature"])

    (toy_path / "work" / "toy.yaml").write_text("method: toy\nname: toy-yaml\nllm: says-tarsk\nk: 2\n"
                                                "cue: 'So the answer is:'\n", encoding="utf-8")
    assert "2 answered now, 0 failed" in hopkit(toy_path, db, "run", "toy.yaml", "--dataset", "toy")
    by_name = hopkit(toy_path, db, "run", "toy", "--dataset", "toy", "--llm", "says-tarsk", "--top-k", "3")
    assert "run toy " in by_name and "2 answered now, 0 failed" in by_name
    assert "toy" in hopkit(toy_path, db, "run", "--help")

    hopkit(toy_path, db, "report", "--out", str(toy_path / "report"))
    assert "the toy read: Tarsk" in question_pages(toy_path / "report")  # drawn by the toy's own template
    assert repository_state() == before


def test_a_method_from_outside_is_contract_tested_and_checked_by_the_registry(toy_path: Path) -> None:
    before = repository_state()
    tests = [str(ROOT / "tests" / "methods" / "test_method_contract.py"),
             str(ROOT / "tests" / "methods" / "test_registry.py")]
    process = run(toy_path, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "toy", "--rootdir", str(ROOT),
                  "-c", str(ROOT / "pyproject.toml"), *tests)
    summary = process.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, process.stdout
    assert int(summary.split(" passed")[0].split()[-1]) >= 8  # the contract's 6 cases and the registry's
    assert repository_state() == before

"""Every shipped pipeline config runs on a user's own dataset (issue 70).

The configs are enumerated from the folder hopkit ships (what ``hopkit run NAME`` accepts), not listed by
hand; a new one joins by being shipped. The dataset is the user's own, in hopkit's JSONL format
(``hopkit ingest jsonl``), under a name no benchmark has, so no paper setting is declared for it. The
store is a real SQLite file and the retriever the real BM25 index; the model is scripted
(``answering_model.AnsweringLLM``, the LLM boundary). A config with settings per dataset takes a
documented default there and says so in one line at the start of the run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hopkit
from hopkit.methods.migres.demonstrations import FILES, MODULES
from hopkit.prompts import ircot_files
from hopkit.prompts.ircot_files import AUTHORS_DEMONSTRATION_QIDS, qa_prompt_file_name

from .answering_model import AnsweringLLM
from .running import hopkit as run_hopkit

pytestmark = pytest.mark.unit

SHIPPED = sorted(path.stem for path in (Path(hopkit.__file__).parent / "configs" / "pipelines").glob("*.yaml"))
SAMPLE = Path(hopkit.__file__).parent / "quickstart" / "sample.jsonl"
FALLBACK = "has no declared setting"
# The configs with per-dataset demonstrations or exemplars: on the user's dataset each says which it takes.
FALLING_BACK = {"iter-retgen": "using hotpotqa's demonstrations (set demonstrations.dataset to choose)",
                "flare": "using hotpotqa's demonstrations (set demonstrations.dataset to choose)",
                "ircot-fewshot": "using hotpotqa's demonstrations (set demonstrations.dataset to choose)",
                "adaptive-rag": "using hotpotqa's demonstrations (set demonstrations.dataset to choose)",
                "dragin": "using hotpotqa's exemplars (set exemplars to choose"}


def write_prompt_files(data: Path) -> None:
    """HotpotQA's and MuSiQue's demonstration files, as the IRCoT authors lay them out (fictional text, each
    question naming its set: "Q: hotpotqa question 0?"), and MIGRES's."""
    for dataset in ("hotpotqa", "musique"):
        folder = data / "ircot" / "prompts" / dataset
        folder.mkdir(parents=True)
        for context in ircot_files.CONTEXTS:
            for reader in ircot_files.READERS:
                answer = "Because Tarsk. So the answer is: Tarsk." if reader == "cot" else "Tarsk"
                paragraphs = "" if context == "no_context" else "Wikipedia Title: Tarsk\nTarsk is a port.\n\n"
                demonstrations = [f'# METADATA: {{"qid": "{qid}"}}\n{paragraphs}Q: {dataset} question {n}?\n'
                                  f"A: {answer}" for n, qid in enumerate(AUTHORS_DEMONSTRATION_QIDS[dataset])]
                (folder / qa_prompt_file_name(context, reader, "codex")).write_text(
                    "\n\n\n".join(demonstrations), encoding="utf-8")
    (data / "migres").mkdir()
    (data / "migres" / FILES["multihop"]).write_text(
        json.dumps({module: f"Question: Q?\n{module}: Tarsk" for module in MODULES}), encoding="utf-8")


@pytest.fixture(scope="module")
def own_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the user's own two questions in hopkit's JSONL format, the prompt files and the model's
    config."""
    folder = tmp_path_factory.mktemp("own")
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()[:2]
    (folder / "my-questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    write_prompt_files(folder / "data")
    (folder / "answering.yaml").write_text("_target_: tests.cli.answering_model.AnsweringLLM\n", encoding="utf-8")
    return folder


@pytest.fixture()
def stored(own_dataset: Path, db: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    """A store holding the user's file as ``my-questions``, and as ``musique`` (a benchmark's name, whose
    declared settings it takes); prompt files are read from the test's folder, never downloaded."""
    monkeypatch.setenv("HOPKIT_DATA_DIR", str(own_dataset / "data"))
    monkeypatch.setenv("HOPKIT_CACHE_DIR", str(own_dataset / "cache"))

    def no_download(self: object, url: str, target: Path) -> None:
        raise AssertionError(f"the test downloaded {url}")

    monkeypatch.setattr(ircot_files.IRCoTPromptFiles, "_download", no_download)
    for name in ("my-questions", "musique"):
        code, _, err = run_hopkit(capsys, "--db", db, "ingest", "jsonl", str(own_dataset / "my-questions.jsonl"),
                                  "--name", name)
        assert code == 0, err
    return db


def run(capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture, db: str, own_dataset: Path,
        config: str, dataset: str = "my-questions") -> tuple[int, str, str, list[str], str]:
    """``hopkit run CONFIG --dataset DATASET`` with the scripted model: exit code, stdout, stderr, the
    fallback lines said, and every prompt the model was given."""
    AnsweringLLM.made.clear()
    caplog.clear()
    code, out, err = run_hopkit(capsys, "--db", db, "run", config, "--dataset", dataset,
                                "--llm", str(own_dataset / "answering.yaml"), "--quiet")
    said = [record.getMessage() for record in caplog.records if FALLBACK in record.getMessage()]
    prompts = "\n".join(prompt for llm in AnsweringLLM.made for prompt in llm.prompts)
    return code, out, err, said, prompts


def test_configs_are_shipped() -> None:
    assert {"iter-retgen", "flare", "ircot-fewshot", "adaptive-rag", "oner", "nor"} <= set(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_config_runs_on_a_user_s_own_dataset(name: str, stored: str, own_dataset: Path,
                                                            capsys: pytest.CaptureFixture[str],
                                                            caplog: pytest.LogCaptureFixture) -> None:
    code, out, err, said, prompts = run(capsys, caplog, stored, own_dataset, name)
    assert code == 0, err
    assert "2 question(s)" in out and "2 answered now, 0 failed" in out
    if name in FALLING_BACK:
        assert len(said) == 1 and FALLING_BACK[name] in said[0] and "'my-questions'" in said[0], said
    else:
        assert said == []
    if name in FALLING_BACK and name != "dragin":  # the default's demonstrations are in the prompts
        assert "Q: hotpotqa question 0?" in prompts


@pytest.mark.parametrize("name", ["iter-retgen", "flare", "ircot-cot", "adaptive-rag"])
def test_a_user_s_config_chooses_the_demonstrations(name: str, stored: str, own_dataset: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     caplog: pytest.LogCaptureFixture) -> None:
    config = tmp_path / "mine.yaml"
    config.write_text(f"experiment: {name}\nname: mine-{name}\ndemonstrations: {{dataset: musique}}\n",
                      encoding="utf-8")
    code, _, err, said, prompts = run(capsys, caplog, stored, own_dataset, str(config))
    assert code == 0, err
    assert said == [] and "Q: musique question 0?" in prompts and "hotpotqa question" not in prompts


def test_demonstration_options_without_a_dataset_keep_the_default_and_say_so(
        stored: str, own_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    config = tmp_path / "mine.yaml"
    config.write_text("experiment: iter-retgen\nname: mine\ndemonstrations: {distractors: 1}\n", encoding="utf-8")
    code, _, err, said, prompts = run(capsys, caplog, stored, own_dataset, str(config))
    assert code == 0, err
    assert len(said) == 1 and "using hotpotqa's demonstrations" in said[0] and "Q: hotpotqa question 0?" in prompts


@pytest.mark.parametrize("name", ["iter-retgen", "ircot-fewshot", "adaptive-rag"])
def test_a_benchmark_s_name_takes_its_declared_demonstrations_and_says_nothing(
        name: str, stored: str, own_dataset: Path, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    code, _, err, said, prompts = run(capsys, caplog, stored, own_dataset, name, dataset="musique")
    assert code == 0, err
    assert said == [] and "Q: musique question 0?" in prompts and "hotpotqa question" not in prompts

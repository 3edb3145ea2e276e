"""load_dataset by name, subsampling with a seed, sample paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hopkit.data import DATASET_NAMES, load_dataset, sample_path, subsample
from hopkit.errors import ConfigError, DataError, UnknownNameError

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture()
def twenty(tmp_path: Path) -> Path:
    path = tmp_path / "twenty.jsonl"
    rows = [{"id": f"q{i:02d}", "question": f"Question {i}?", "answers": [str(i)],
             "paragraphs": [{"title": f"T{i}", "text": f"text {i}", "is_supporting": True}]} for i in range(20)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_names_cover_every_format() -> None:
    assert set(DATASET_NAMES) == {"hotpotqa", "2wikimultihopqa", "musique", "iirc", "strategyqa", "ircot", "jsonl",
                                  "flashrag"}


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownNameError, match=r"unknown dataset 'hotpot'.*hotpotqa"):
        load_dataset("hotpot", FIXTURES / "hotpot_small.json")


def test_load_by_name_with_path_and_options() -> None:
    assert [e.id for e in load_dataset("hotpotqa", FIXTURES / "hotpot_small.json")] == ["hp1", "hp2", "hp3"]
    iirc = load_dataset("iirc", str(FIXTURES / "iirc" / "dev.json"), linked_pages=False)
    assert [len(e.context) for e in iirc] == [1, 1, 1, 1]


def test_unknown_option_is_a_config_error_listing_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"unknown option.*colour.*articles_path"):
        load_dataset("iirc", FIXTURES / "iirc" / "dev.json", colour="red")


def test_missing_path_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="not found"):
        load_dataset("musique", tmp_path / "nope.jsonl")


def test_same_seed_same_subset_in_file_order(twenty: Path) -> None:
    first = [e.id for e in load_dataset("jsonl", twenty, limit=5, seed=7)]
    again = [e.id for e in load_dataset("jsonl", twenty, limit=5, seed=7)]
    other = [e.id for e in load_dataset("jsonl", twenty, limit=5, seed=8)]
    assert first == again
    assert len(first) == 5 and first == sorted(first)
    assert first != other


def test_limit_above_size_keeps_everything(twenty: Path) -> None:
    assert len(load_dataset("jsonl", twenty, limit=100)) == 20
    assert len(load_dataset("jsonl", twenty)) == 20


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_bad_limit_is_a_config_error(twenty: Path, bad: object) -> None:
    with pytest.raises(ConfigError, match="limit"):
        load_dataset("jsonl", twenty, limit=bad)  # type: ignore[arg-type]


def test_subsample_of_nothing_is_nothing() -> None:
    assert subsample([], 3, 0) == []


def test_sample_path_uses_the_data_dir_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOPKIT_DATA_DIR", str(tmp_path))
    assert sample_path("hotpotqa") == tmp_path / "hotpotqa" / "hotpot_dev_distractor_sample.json"
    assert sample_path("ircot") == tmp_path / "hotpotqa" / "hotpot_dev_ircot_format_sample.jsonl"
    assert sample_path("musique", data_dir="/d") == Path("/d/musique/musique_ans_dev_sample.jsonl")


def test_sample_path_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOPKIT_DATA_DIR", raising=False)
    with pytest.raises(ConfigError, match="HOPKIT_DATA_DIR is not set"):
        sample_path("musique")
    with pytest.raises(ConfigError, match="no sample"):
        sample_path("iirc", data_dir="/d")
    with pytest.raises(UnknownNameError):
        sample_path("squad", data_dir="/d")


def test_no_download_source_for_own_formats(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no public file"):
        load_dataset("jsonl", cache_dir=tmp_path)

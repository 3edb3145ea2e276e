"""LLMs named by an hf:// file: the --llm form, and model_path: hf://... in an LLM config.

The files come from the loopback fake Hub (hopkit.llm.testing_hub) through huggingface_hub's
real download code; llama_cpp.Llama is faked, so no model is loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import llama_cpp
import pytest

from hopkit import environment
from hopkit.config import load_llm, named_spec
from hopkit.errors import ConfigError, DownloadError
from hopkit.llm.hub import HubFile, download_hub_file
from hopkit.llm.testing_hub import FakeHub, loopback_only, serve_fake_hub

pytestmark = pytest.mark.unit


@pytest.fixture(autouse=True)
def connections() -> Iterator[list[str]]:
    """The hosts every test connected to: 127.0.0.1 only (huggingface_hub's telemetry is off)."""
    with loopback_only() as hosts:
        yield hosts
    assert set(hosts) <= {"127.0.0.1"}, hosts

URI = "hf://acme/tiny-GGUF/tiny.gguf"


@pytest.fixture()
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    """The fake Hub as $HF_ENDPOINT, a fresh cache, a working folder, and a llama.cpp that loads nothing."""
    def fake_llama(**options: Any) -> None:
        raise ValueError(f"fake llama.cpp asked for {options['model_path']}")

    monkeypatch.setattr(llama_cpp, "Llama", fake_llama)
    monkeypatch.setenv(environment.HOPKIT_CACHE_DIR, str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    with serve_fake_hub({"acme/tiny-GGUF/tiny.gguf": b"tiny"}) as server:
        monkeypatch.setenv(environment.HF_ENDPOINT, server.url)
        yield server


def test_an_hf_name_is_an_llm_config_of_its_own_for_the_run_hash() -> None:
    assert named_spec("llm", URI) == {"_target_": "hopkit.llm.llama_cpp.LlamaCppLLM.load", "model_path": URI}
    with pytest.raises(ConfigError, match="'hf://acme/tiny-GGUF' is not a Hugging Face Hub file"):
        named_spec("llm", "hf://acme/tiny-GGUF")


def test_load_llm_downloads_an_hf_name_and_hands_the_file_to_llama_cpp(hub: FakeHub) -> None:
    with pytest.raises(ConfigError) as caught:
        load_llm(URI)
    cached = download_hub_file(HubFile("acme/tiny-GGUF", "tiny.gguf"))
    assert str(caught.value).startswith(f"{URI}: llama.cpp could not load {cached}: fake llama.cpp asked for "
                                        f"{cached}")
    assert [r.method for r in hub.requests] == ["HEAD", "GET"]


def test_a_download_failure_is_raised_as_it_is(hub: FakeHub) -> None:
    with pytest.raises(DownloadError, match=r"^cannot download hf://acme/tiny-GGUF/big\.gguf: the repository "
                                            r"acme/tiny-GGUF has no file 'big\.gguf'"):
        load_llm("hf://acme/tiny-GGUF/big.gguf")


def test_an_llm_config_file_names_a_hub_file_as_its_model_path(hub: FakeHub, tmp_path: Path) -> None:
    (tmp_path / "configs" / "llm").mkdir(parents=True)
    (tmp_path / "configs" / "llm" / "tiny.yaml").write_text(
        f"_target_: hopkit.llm.llama_cpp.LlamaCppLLM.load\nmodel_path: {URI}\nn_ctx: 256\n")
    (tmp_path / "configs" / "llm" / "typo.yaml").write_text(
        "_target_: hopkit.llm.llama_cpp.LlamaCppLLM.load\nmodel_path: hf://acme/tiny-GGUF\n")
    with pytest.raises(ConfigError, match=r"configs/llm/tiny\.yaml: llama\.cpp could not load .*/hub/"
                                          r"models--acme--tiny-GGUF/snapshots/.*/tiny\.gguf"):
        load_llm("tiny")
    with pytest.raises(ConfigError, match=r"configs/llm/typo\.yaml: 'hf://acme/tiny-GGUF' is not a Hugging Face "
                                          r"Hub file"):
        load_llm("typo")


def test_the_packaged_hub_model_config_names_a_well_formed_hub_file() -> None:
    spec = named_spec("llm", "qwen2.5-1.5b-instruct")
    assert spec["_target_"] == "hopkit.llm.llama_cpp.LlamaCppLLM.load"
    assert spec["model_path"] == "hf://Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf"

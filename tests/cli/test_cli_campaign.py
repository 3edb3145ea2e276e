"""``hopkit campaign TOOL``: each tool of hopkit's own benchmark campaign runs from the command line with
its own arguments."""

from __future__ import annotations

import importlib

import pytest
import yaml

from hopkit.cli import main
from hopkit.cli.campaign import TOOLS, module_of

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_every_tool_is_a_campaign_module_with_a_main(tool: str) -> None:
    assert callable(importlib.import_module(module_of(tool)).main)


def test_the_variant_tool_prints_the_config_hopkit_run_takes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["campaign", "variant", "ircot-minilm", "musique"]) == 0
    config = yaml.safe_load(capsys.readouterr().out)
    assert (config["method"], config["name"], config["retrieval_pipeline_name"]) == (
        "ircot", "ircot-minilm-musique", "minilm")


def test_a_tools_own_arguments_reach_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["campaign", "variant", "no-such-variant", "musique"])
    assert stopped.value.code == 2
    assert "invalid choice: 'no-such-variant'" in capsys.readouterr().err


def test_the_run_tools_help_names_every_variant_it_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 70 papercut: `hopkit campaign run --help` said "NoR, OneR, IRCoT, MIGRES and SearChain on the samples"
    long after it ran some forty variants; the list now comes from the variants themselves."""
    from hopkit.campaign.qa_pipelines import METHODS

    with pytest.raises(SystemExit) as stopped:
        main(["campaign", "run", "--help"])
    assert stopped.value.code == 0
    shown = capsys.readouterr().out
    assert shown.startswith("usage: hopkit campaign run ")
    assert "NoR, OneR, IRCoT, MIGRES and SearChain" not in shown
    listed = " ".join(shown.split("The variants", 1)[1].split("options:", 1)[0].split())
    assert all(f" {name}," in listed or f" {name}." in listed for name in METHODS), listed
    assert {"nor", "oner", "ircot", "dragin", "search-r1", "self-ask"} <= set(METHODS)

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

"""The package metadata builds without deprecation warnings."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_the_license_is_an_spdx_expression_with_a_setuptools_that_reads_it() -> None:
    """Issue item 11: `license = { text = ... }` made every install warn that the table is deprecated."""
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    assert project["project"]["license"] == "Apache-2.0"
    setuptools = [r for r in project["build-system"]["requires"] if r.startswith("setuptools")]
    minimum = re.fullmatch(r"setuptools>=(\d+)(\.\d+)*", setuptools[0])
    assert minimum is not None and int(minimum.group(1)) >= 77  # the first setuptools to read SPDX strings

"""``hopkit campaign TOOL ...``: hopkit's own QA benchmark campaign, the one behind ``docs/`` (run from a
checkout: it reads and writes ``benchmarks/results/`` and the pages). Each tool is a module of
:mod:`hopkit.campaign` with its own arguments (``hopkit campaign TOOL --help``)."""

from __future__ import annotations

import argparse
import importlib

#: tool -> (its module in hopkit.campaign, what it does)
TOOLS: dict[str, tuple[str, str]] = {
    "run": ("qa_bench", "run variants x datasets into the bench store, score them, write a section (to --out, or the "
                        "repository's pages with --write-repository)"),
    "sections": ("qa_sections", "rebuild the QA sections' tables from the saved runs; --write puts them on the page"),
    "pages": ("reader_pages", "write docs/leaderboard.md and docs/claims/ from the saved runs (--check: compare)"),
    "paired": ("method_claims", "a method paired against the baselines its paper names, every metric, a section"),
    "costs": ("baseline_costs", "the baselines' costs per question from their stored runs, a section"),
    "judge": ("judge_runs", "LLM-judge the bench store's runs and save them again"),
    "calibrate-migres": ("migres_calibration", "MIGRES's relevance threshold for the benchmark's model"),
    "calibrate-searchain": ("searchain_calibration", "SearChain's confidence threshold for the benchmark's model"),
    "train-router": ("router_training", "Adaptive-RAG's classifier for the benchmark's model, from the saved NoR "
                                        "and OneR runs on questions 31-100, and its accuracy on the first 30"),
    "variant": ("qa_pipelines", "print a variant on a dataset as the config `hopkit run` takes"),
    "save-runs": ("saved_runs", "export the bench store's runs to benchmarks/results/runs/"),
    "run-ids": ("saved_run_ids", "the run ids each variant has on each dataset (tests/benchmarks/variant_run_ids.json)"),
    "answers-unchanged": ("answers_unchanged", "rerun methods on the first questions and compare with the saved runs"),
    "pin-effects": ("pin_effects", "how often each pinned fix's rule reads the saved runs' traces otherwise"),
    "reparse-migres": ("migres_reparse", "re-parse stored MIGRES runs with the current parser"),
    "reproduce-miniature": ("setting_miniature", "hopkit reproduce on the samples as FlashRAG files on one stored "
                                                 "corpus of their pooled paragraphs (docs/standard-setting.md)"),
}


def module_of(tool: str) -> str:
    """The full name of ``tool``'s module."""
    return f"hopkit.campaign.{TOOLS[tool][0]}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Tools: " + "; ".join(f"{name}: {what}" for name, (_, what) in TOOLS.items())
    parser.add_argument("tool", choices=sorted(TOOLS), help="what to do (each takes its own arguments)")
    parser.add_argument("arguments", nargs=argparse.REMAINDER, help="the tool's arguments (TOOL --help lists them)")


def cmd_campaign(args: argparse.Namespace) -> int:
    tool = importlib.import_module(module_of(args.tool))
    given = ["--db", args.db] if getattr(args, "db", None) else []  # `hopkit --db URL campaign TOOL`
    return int(tool.main([*given, *args.arguments]) or 0)

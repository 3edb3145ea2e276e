"""``hopkit claims METHOD``: the paired claims of a method against the baselines its paper names."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from hopkit.claim_checks import ClaimChecker, declared_claims
from hopkit.report.claims import RULE, claims_json, claims_markdown, claims_table, notes, tally
from hopkit.report.table import to_text
from hopkit.cli.store_access import reading_factory
from hopkit.errors import ReportError
from hopkit.full_disk import free_space, is_disk_full
from hopkit.store.store import Store
from hopkit.store.verdicts import VerdictStore
from hopkit.terminal import printable


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("subject", help="a method whose paper's claims to check (migres, searchain, ircot, ...), or "
                                        "one run name a claim is about (alce-rerank)")
    parser.add_argument("--datasets", nargs="+", help="only these stored datasets (default: every one a claim names)")
    parser.add_argument("--judge", help="model id of the LLM judge whose verdicts give LLM Acc (default: the one "
                                        "judge of each pair of runs)")
    parser.add_argument("--out", type=Path, default=Path("claims"),
                        help="folder for SUBJECT.md and SUBJECT.json (default: ./claims)")
    parser.add_argument("--no-pooled", action="store_true", help="no row pooling a claim's datasets")


def cmd_claims(args: argparse.Namespace) -> int:
    claims = declared_claims(args.subject)
    session_factory = reading_factory(args)
    checker = ClaimChecker(Store(session_factory), VerdictStore(session_factory), args.judge)
    checks = checker.check(claims, args.datasets, pooled=not args.no_pooled)
    table = claims_table(checks)
    print(to_text(table), end="")
    print("\n" + tally(checks))
    absent = [f"not in the store, not checked: {', '.join(sorted(checker.absent))}"] if checker.absent else []
    for line in [*notes(checks), *absent]:
        print(printable(line))
    print("\n" + RULE)
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"{args.subject}.md").write_text(claims_markdown(args.subject, checks, checker.absent),
                                                     encoding="utf-8")
        (args.out / f"{args.subject}.json").write_text(json.dumps(claims_json(args.subject, checks), indent=2)
                                                       + "\n", encoding="utf-8")
    except OSError as exc:
        if is_disk_full(exc):
            raise ReportError(free_space("the claims", exc, args.out, elsewhere="--out")) from exc
        raise ReportError(f"option '--out': cannot write the claims to {args.out}: {exc.strerror or exc}; choose "
                          "a writable folder") from exc
    print(f"\nwritten: {args.out / f'{args.subject}.md'}, {args.out / f'{args.subject}.json'}")
    return 0

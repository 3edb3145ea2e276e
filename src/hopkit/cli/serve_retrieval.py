"""``hopkit serve-retrieval``: a stored corpus's retriever behind HTTP (Search-R1's ``/retrieve`` and hopkit's own)."""

from __future__ import annotations

import argparse
import ipaddress
import sys
from pathlib import Path

from hopkit.cli.numbers import integer, number
from hopkit.cli.store_access import existing_connection
from hopkit.env_values import secret_token
from hopkit.errors import ConfigError
from hopkit.remote_retrieval.wire import Limits
from hopkit.serving.options import ServerOptions
from hopkit.store.store import Store

INTERRUPTED = "the server stopped after the requests in flight"


def add_arguments(serve: argparse.ArgumentParser) -> None:
    limits, options = Limits(), ServerOptions()
    serve.add_argument("--dataset", help="stored dataset whose corpus is served (default: the only one)")
    serve.add_argument("--corpus", help="a corpus stored with `hopkit corpus add` (served through a dataset on it)")
    serve.add_argument("--retrieval", default="bm25", help="retrieval config name (default bm25)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine "
                                                          "only; another needs --token-file or --open)")
    serve.add_argument("--port", type=integer(0), default=8000, help="port (default 8000; 0: a free one, printed)")
    serve.add_argument("--workers", type=integer(1), default=1,
                       help="worker processes, sharing one memory-mapped index (default 1)")
    serve.add_argument("--token-file", type=Path,
                       help="file holding the bearer token every request must carry (Authorization: Bearer TOKEN)")
    serve.add_argument("--open", action="store_true", help="serve beyond this machine without a token")
    serve.add_argument("--batch-wait-ms", type=number, default=options.max_wait * 1000,
                       help=f"milliseconds a batch gathers requests (default {options.max_wait * 1000:g})")
    serve.add_argument("--max-batch", type=integer(1), default=options.max_batch,
                       help=f"queries in one batch at most (default {options.max_batch}); --max-batch 1 "
                            "--batch-wait-ms 0 answers one query at a time")
    serve.add_argument("--max-queue", type=integer(1), default=options.max_queue,
                       help=f"queries waiting per worker before requests get 503 (default {options.max_queue})")
    serve.add_argument("--max-queries", type=integer(1), default=limits.max_queries,
                       help=f"queries in one request at most (default {limits.max_queries})")
    serve.add_argument("--max-topk", type=integer(1), default=limits.max_topk,
                       help=f"topk / k of one query at most (default {limits.max_topk})")
    serve.add_argument("--default-topk", type=integer(1), default=limits.default_topk,
                       help=f"topk of a Search-R1 request that gives none (default {limits.default_topk})")
    serve.add_argument("--max-query-chars", type=integer(1), default=limits.max_query_chars,
                       help=f"characters in one query at most (default {limits.max_query_chars})")
    serve.add_argument("--max-body-bytes", type=integer(1), default=limits.max_body_bytes,
                       help=f"bytes of one request body at most (default {limits.max_body_bytes})")
    serve.add_argument("--read-deadline", type=number, default=options.read_deadline,
                       help=f"seconds a client has to send a request (default {options.read_deadline:g})")
    serve.add_argument("--quiet", action="store_true", help="no progress bar while an index is built")


def _token(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--token-file {path}: cannot be read ({exc})") from exc
    if not text:
        raise ConfigError(f"--token-file {path}: the file is empty; write the token in it")
    return secret_token(f"--token-file {path}", text, expects="the token alone on one line")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _positive(name: str, value: float) -> float:
    if value < 0:
        raise ConfigError(f"{name} must be >= 0, got {value:g}")
    return value


def cmd_serve_retrieval(args: argparse.Namespace) -> int:
    try:
        from hopkit.serving.server import ServePlan, bind, load_served, serve
    except ImportError as exc:
        raise ConfigError(f"hopkit serve-retrieval needs the serving extra ({exc}): pip install 'hopkit[serve]'") from exc
    from hopkit.serving.served import ServeSettings, dataset_to_serve

    token = _token(args.token_file)
    if token is None and not args.open and not _loopback(args.host):
        raise ConfigError(f"--host {args.host} serves beyond this machine: give --token-file FILE (every request "
                          "then carries the token), or --open to serve without one")
    if _positive("--read-deadline", args.read_deadline) == 0:
        raise ConfigError("--read-deadline must be > 0")
    limits = Limits(max_queries=args.max_queries, max_query_chars=args.max_query_chars, max_topk=args.max_topk,
                    max_body_bytes=args.max_body_bytes, default_topk=min(args.default_topk, args.max_topk))
    options = ServerOptions(limits=limits, token=token, read_deadline=args.read_deadline,
                            max_wait=_positive("--batch-wait-ms", args.batch_wait_ms) / 1000,
                            max_batch=args.max_batch, max_queue=max(args.max_queue, args.max_queries))
    connection = existing_connection(args)
    dataset = dataset_to_serve(Store(connection.get_session_factory()), args.dataset, args.corpus)
    settings = ServeSettings(connection.url, args.retrieval, dataset)
    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        raise ConfigError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from exc
    with sock:
        served = load_served(settings, progress=None if not args.quiet else False)
        plan = ServePlan(settings, options, args.host, sock.getsockname()[1], args.workers)
        serve(plan, sock, served, announce=lambda line: print(line, flush=True))
    sys.stdout.flush()
    return 0

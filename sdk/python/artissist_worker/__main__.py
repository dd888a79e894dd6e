"""`python -m artissist_worker run module:worker`: imports the module and runs its Worker until SIGTERM or SIGINT.
`python -m artissist_worker types`: prints a module of TypedDicts for the declared kinds' inputs and outputs, read from the
server at ARTISSIST_URL with ARTISSIST_TOKEN (a tenant's token: a pool worker's may not read jobKinds)."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys

from .client import Client, ServerError
from .kinds import JOB_KINDS_QUERY, Kinds
from .typegen import typed_module
from .worker import Worker


def types() -> int:
    """Prints the declared kinds' TypedDicts and returns 0; or returns 1 with the reason in one line on stderr, as
    the TypeScript SDK's `artissist-worker types` does: a variable not set, or the server's error (its code and message)."""
    url, token = os.environ.get("ARTISSIST_URL"), os.environ.get("ARTISSIST_TOKEN")
    if not url or not token:
        sys.stderr.write("ARTISSIST_URL and ARTISSIST_TOKEN must be set.\n")
        return 1
    try:
        kinds = Client(url, token).call(JOB_KINDS_QUERY)["jobKinds"]
    except ServerError as error:
        # A user's mistake (a wrong URL, an expired token) is told as the server told it, not as a traceback.
        sys.stderr.write(f"jobKinds failed: {error}\n")
        return 1
    sys.stdout.write(typed_module(Kinds(kinds)))
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m artissist_worker")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run a Worker: module:attribute, e.g. my_worker:worker")
    run.add_argument("target")
    commands.add_parser("types", help="print TypedDicts of the declared kinds' inputs and outputs (ARTISSIST_URL, ARTISSIST_TOKEN)")
    args = parser.parse_args(argv)
    if args.command == "types":
        return types()
    module_name, _, attribute = args.target.partition(":")
    worker = getattr(importlib.import_module(module_name), attribute or "worker")
    if not isinstance(worker, Worker):
        parser.error(f"{args.target} is not a Worker")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    worker.run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

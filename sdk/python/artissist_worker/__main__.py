"""`python -m artissist_worker run module:worker`: imports the module and runs its Worker until SIGTERM or SIGINT.
`python -m artissist_worker types`: prints a module of TypedDicts for the declared kinds' inputs and outputs, read from the
server at ARTISSIST_URL with ARTISSIST_TOKEN (a tenant's token: a pool worker's may not read jobKinds)."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys

from .client import Client
from .kinds import JOB_KINDS_QUERY, Kinds
from .typegen import typed_module
from .worker import Worker


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m artissist_worker")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run a Worker: module:attribute, e.g. my_worker:worker")
    run.add_argument("target")
    commands.add_parser("types", help="print TypedDicts of the declared kinds' inputs and outputs (ARTISSIST_URL, ARTISSIST_TOKEN)")
    args = parser.parse_args(argv)
    if args.command == "types":
        client = Client(os.environ["ARTISSIST_URL"], os.environ["ARTISSIST_TOKEN"])
        sys.stdout.write(typed_module(Kinds(client.call(JOB_KINDS_QUERY)["jobKinds"])))
        return 0
    module_name, _, attribute = args.target.partition(":")
    worker = getattr(importlib.import_module(module_name), attribute or "worker")
    if not isinstance(worker, Worker):
        parser.error(f"{args.target} is not a Worker")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    worker.run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

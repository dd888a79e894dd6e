"""`python -m artissist_worker run module:worker`: imports the module and runs its Worker until SIGTERM or SIGINT."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from .worker import Worker


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m artissist_worker")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run a Worker: module:attribute, e.g. my_worker:worker")
    run.add_argument("target")
    args = parser.parse_args(argv)
    module_name, _, attribute = args.target.partition(":")
    worker = getattr(importlib.import_module(module_name), attribute or "worker")
    if not isinstance(worker, Worker):
        parser.error(f"{args.target} is not a Worker")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    worker.run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

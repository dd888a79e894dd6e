#!/usr/bin/env node
// `npm start` and `npm run demo`: builds if needed, then runs the server in this same process.
//
// Why one process: npm runs a script as `sh -c "<script>"` and passes SIGINT and SIGTERM on to
// that shell. A chain like `build && node main.js` keeps the shell alive as the parent of node,
// and the shell dies of the SIGTERM without passing it on, so `kill -TERM <npm's pid>` left the
// server running, orphaned. So the scripts say `exec node src/scripts/start.cjs`: the shell
// becomes this process (Debian's dash does not do that by itself, bash would), so npm's signal
// reaches the server, and a Ctrl-C to the process group finds no shell to kill either.
// First of all: on an unsupported Node, one line that says so and how to get Node 26, then exit 1.
require('./check-node.cjs');
require('./ensure-built.cjs');
require('../../dist/src/main.js');

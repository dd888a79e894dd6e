#!/usr/bin/env node
// The SDK's command line (src/cli.ts), as `npm run build` compiles it with the server: `artissist-worker types > kinds.ts`.
require('../../../dist/sdk/typescript/src/cli.js')
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });

/** @type {import('jest').Config} */
// Quiet the AWS SDK's notice that its 2027 releases need Node 22: it shows only on a Node older
// than `engines` allows (Node 24 and 26, which CI runs, have none to quiet).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
module.exports = {
  // jest's node environment, with the fixture registry's test and describe scopes (test/support/fixtures.ts).
  testEnvironment: '<rootDir>/test/support/environment.ts',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // One DynamoDB Local for the whole run; each test file makes its own table in it.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/env.ts'],
  testTimeout: 60_000,
  // One file at a time: the end-to-end files start servers, instances, Redis, Chromium and child
  // processes against one shared DynamoDB Local, and two of them at once on two cores overloaded it
  // (DynamoDB calls past their deadline, sweeps and latency bounds missed). Within a file, tests
  // still run their concurrent requests.
  maxWorkers: 1,
};

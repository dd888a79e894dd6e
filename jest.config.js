/** @type {import('jest').Config} */
// Quiet the AWS SDK's notice that its 2027 releases need Node 22: it shows only on a Node older
// than `engines` allows (Node 24 and 26, which CI runs, have none to quiet).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
module.exports = {
  // jest's node environment, with the fixture registry's test and describe scopes (test/support/fixtures.ts).
  testEnvironment: '<rootDir>/test/support/environment.ts',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // One DynamoDB Local for the run, with a database for each worker; each test file makes its own tables in it.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/env.ts'],
  testTimeout: 60_000,
  // Three files at a time on two cores: files wait on DynamoDB Local, child processes and timers,
  // so a third keeps both cores busy (a run took 349 s against 384 s with two, at the same CPU
  // time). Each worker has its own database in the run's DynamoDB Local (globalSetup), and the
  // tests of a file whose docblock says `@alone` (a latency or rate bound another file's load would
  // bend) run while no other file does (test/support/turns.ts; its `beforeAll` hooks run beside
  // the others). The files marked `@long` start first (test/support/sequencer.js), so that the
  // short ones fill the other workers beside them.
  maxWorkers: 3,
  testSequencer: '<rootDir>/test/support/sequencer.js',
};

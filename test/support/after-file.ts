import { beginTest, disposeFixtures, endTest } from './fixtures';

// Installed once for every test file (jest `setupFilesAfterEnv`, test/support/fixtures.ts): what a
// test started is disposed after it, what a `beforeAll` started after the file's last test, also
// when a test failed or timed out. Stopping real servers, DynamoDB Local and browsers on a busy
// machine can take a while, hence the long bounds.
beforeEach(beginTest);
afterEach(() => endTest(), 120_000);
afterAll(() => disposeFixtures(), 120_000);

import { disposeFixtures } from './fixtures';

// Installed once for every test file (jest `setupFilesAfterEnv`): whatever the file's tests
// started is disposed after its last test, also when a test failed or timed out. Stopping real
// servers, DynamoDB Local and browsers on a busy machine can take a while, hence the long bound.
afterAll(() => disposeFixtures(), 120_000);

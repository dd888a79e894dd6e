import 'reflect-metadata';

// Quiet logs and the AWS SDK's Node-version notice in test output.
process.env.NODE_ENV = 'test';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

// Test tables have no change stream unless a test asks for one (TABLE_STREAM=on, or
// `freshTable({ stream: true })`): DynamoDB Local keeps every stream record of the run, dropped
// tables' too, and its writes slowed about a hundredfold as they piled up over the suite (see
// ensureTable). Servers this process starts, and the child processes it spawns, inherit the setting.
process.env.TABLE_STREAM ??= 'off';

// This worker's DynamoDB Local, of the ones globalSetup started (one a jest worker; JEST_WORKER_ID
// counts from 1, and is 1 when jest runs the files in its own process).
const endpoints = (process.env.TEST_DYNAMODB_ENDPOINTS ?? '').split(' ').filter(Boolean);
if (endpoints.length > 0)
  process.env.TEST_DYNAMODB_ENDPOINT = endpoints[(Number(process.env.JEST_WORKER_ID ?? '1') - 1) % endpoints.length];

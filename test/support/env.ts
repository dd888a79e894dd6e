import 'reflect-metadata';

// Quiet logs and the AWS SDK's Node-version notice in test output.
process.env.NODE_ENV = 'test';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

// Test tables have no change stream unless a test asks for one (TABLE_STREAM=on, or
// `freshTable({ stream: true })`): DynamoDB Local keeps every stream record of the run, dropped
// tables' too, and its writes slowed about a hundredfold as they piled up over the suite (see
// ensureTable). Servers this process starts, and the child processes it spawns, inherit the setting.
process.env.TABLE_STREAM ??= 'off';

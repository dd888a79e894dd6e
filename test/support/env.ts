import 'reflect-metadata';

// Quiet logs and the AWS SDK's Node-version notice in test output.
process.env.NODE_ENV = 'test';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

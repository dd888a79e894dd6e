import { App, DefaultStackSynthesizer } from 'aws-cdk-lib';
import { StorageStack } from './storage-stack';

type Env = Record<string, string | undefined>;

/** What the deploy template is made from: the server's own setting names where they exist (see docs/deploying.md). */
export interface DeploySettings {
  stackName: string;
  tableName: string;
  bucketName?: string;
  corsOrigins: string[];
  archiveAfterDays: number;
  abortMultipartAfterDays: number;
  account?: string;
  region?: string;
}

function days(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number of days, got "${raw}".`);
  return value;
}

export function deploySettings(env: Env = process.env): DeploySettings {
  return {
    stackName: env.STACK_NAME || 'ArtissistStorage',
    tableName: env.TABLE_NAME || 'Artissist',
    bucketName: env.S3_BUCKET || undefined,
    corsOrigins: (env.CORS_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    archiveAfterDays: days(env, 'ARCHIVE_AFTER_DAYS', 0),
    abortMultipartAfterDays: days(env, 'ABORT_MULTIPART_AFTER_DAYS', 1),
    account: env.CDK_DEFAULT_ACCOUNT || undefined,
    region: env.AWS_REGION || env.CDK_DEFAULT_REGION || undefined,
  };
}

/**
 * Builds the CDK app. Synthesis is offline: nothing here looks anything up in an AWS account. The
 * template carries no bootstrap-version rule and no CDK metadata resource, so it deploys with
 * plain `aws cloudformation deploy` as well as with `cdk deploy --app cdk.out`.
 */
export function buildApp(settings: DeploySettings, outdir = 'cdk.out'): { app: App; storage: StorageStack } {
  const app = new App({ outdir, analyticsReporting: false });
  const storage = new StorageStack(app, settings.stackName, {
    ...settings,
    env: settings.account || settings.region ? { account: settings.account, region: settings.region } : undefined,
    synthesizer: new DefaultStackSynthesizer({ generateBootstrapVersionRule: false }),
    description: 'Artissist: the DynamoDB table, the S3 bucket and the runtime policy of the GraphQL server',
  });
  return { app, storage };
}

if (require.main === module) {
  const settings = deploySettings();
  const assembly = buildApp(settings).app.synth();
  for (const stack of assembly.stacks) process.stdout.write(`${stack.stackName}: ${assembly.directory}/${stack.templateFile}\n`);
}

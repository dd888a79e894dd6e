import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildSchema,
  type DefinitionNode,
  type DocumentNode,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  Kind,
  NoUnusedFragmentsRule,
  type OperationDefinitionNode,
  parse,
  print,
  specifiedRules,
  validate,
} from 'graphql';
import { ROOT, processFixture } from '../support/processes';
import { Role, startTestServer, TEST_OPERATOR_SECRET, TEST_SECRET, type TestServer } from '../support/server';
import { tempDir } from '../support/fixtures';
import { type Block, blocksOf } from '../support/doc-blocks';

/*
 * Every fenced block of README.md and docs/*.md, as a reader meets it. A ```sh block runs in bash
 * against a fresh server, a ```graphql block's operations run over HTTP (a block of fragments or
 * schema excerpts is validated against schema.graphql instead), and any other block (program
 * output, TypeScript, diagrams, commands that install, start a server or deploy) must say why it
 * is not run, in an HTML comment on the line before it: `<!-- not run: starts a server -->`. A new
 * block that is neither fails the first test, so no snippet can rot unseen.
 *
 * "As written" means the text of the block, with only what the docs tell a reader to put in:
 * the URL `npm start` printed (the test server's, instead of 127.0.0.1:4000), the token
 * (`npm run token`, which signs with the test server's secret through AUTH_JWT_SECRET as the
 * README says), and the placeholders the docs name next to the block ("replace `proj_…` with one
 * of your projects' ids"), filled from entities the test makes. Whatever is still a placeholder
 * after that (`<t>`, `job_…`) fails the block.
 */

// --- The blocks -------------------------------------------------------------------------------

const DOC_FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

const BLOCKS = DOC_FILES.flatMap(blocksOf);
const SHELL = new Set(['sh', 'bash']);
const GRAPHQL = new Set(['graphql']);
const where = (block: Block) => `${block.file}:${block.line} (${block.lang || 'no language'})`;
const runnable = (block: Block) => block.excuse === undefined && (SHELL.has(block.lang) || GRAPHQL.has(block.lang));

const schema = buildSchema(readFileSync(join(ROOT, 'schema.graphql'), 'utf8'));

/** The address the docs show, which stands for the one `npm start` printed. */
const DOC_ORIGIN = 'http://127.0.0.1:4000';
/** What is still a placeholder once the docs' placeholders are filled: `<t>`, `<upload.url>`, `proj_…`, `job_01J…`. */
const LEFT_OVER = /<[A-Za-z][\w.]*>|\b[a-z]+_(?:01J)?…/;
const TENANT = 'demo';

// --- What the test does for particular blocks ---------------------------------------------------

interface Context {
  server: TestServer;
  /** Runs a query or mutation as tenant `demo` with `roles`; the data, or a thrown error naming the errors. */
  gql(query: string, variables?: Record<string, unknown>, roles?: Role[]): Promise<any>;
  /** A new project of tenant `demo`: what "one of your projects' ids" stands for. */
  project(): Promise<string>;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

interface Running {
  stdout(): string;
  stderr(): string;
}

interface ShellCase {
  file: string;
  /** A piece of text found in exactly one shell block of `file`: the block this case is for. */
  marker: string;
  /** Values of the placeholders the docs name next to the block, made as the docs tell the reader to. */
  fill?: (ctx: Context) => Promise<Record<string, string>>;
  /** A folder of its own with these files in it, for a block that reads and writes files there. */
  files?: Record<string, Buffer>;
  /** What the docs ask the reader to do after the block (run a line again), appended to it. */
  afterwards?: (text: string) => string;
  /** What the reader does while the block runs (drives the job it watches). */
  during?: (ctx: Context, fills: Record<string, string>, running: Running) => Promise<void>;
  /** The error codes of the JSON answers the docs say fail, in order. */
  errors?: string[];
  /** stderr lines the block prints by design. */
  stderr?: RegExp;
  check(run: Run & { answers: any[]; folder: string }, ctx: Context, fills: Record<string, string>): void | Promise<void>;
}

interface OperationCase {
  roles?: Role[];
  /** State the docs presuppose (a job whose stage is open), made before the operation runs. */
  setup?: (ctx: Context, state: Record<string, any>) => Promise<void>;
  /** The variables, from where the docs say they come (an earlier answer of the block). */
  variables?: (state: Record<string, any>) => Record<string, unknown>;
  check?: (data: any, state: Record<string, any>) => void;
}

/** A 1×1 PNG, the smallest file the upload example's `FILE=./harbour.png` can be. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

const jwtPayload = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));

/** A job of `demo` with one free-form step, as `createJob` makes it (QUEUED). */
const queuedJob = async (ctx: Context) => {
  const projectId = await ctx.project();
  return (await ctx.gql(`mutation { createJob(input: { projectId: "${projectId}", kind: "RENDER", steps: ["render"] }) { jobId } }`))
    .createJob.jobId as string;
};

/** A MUSIC_VIDEO job of `demo` whose worker has started `generate-scenes`. */
const musicVideoAtGenerateScenes = async (ctx: Context) => {
  const projectId = await ctx.project();
  const { jobId } = (
    await ctx.gql(
      `mutation { createJob(input: { projectId: "${projectId}", kind: "MUSIC_VIDEO",
        inputs: { characterImage: "tenants/demo/hero.png", audioBackingTrack: "tenants/demo/track.mp3" } }) { jobId } }`,
    )
  ).createJob;
  await ctx.gql(`mutation { startStep(jobId: "${jobId}", stepName: "generate-scenes") { seq } }`, {}, [Role.WORKER]);
  return jobId as string;
};

const SHELL_CASES: ShellCase[] = [
  {
    file: 'docs/operations.md',
    marker: 'npm run migrate -- --url "$URL"',
    check: ({ stdout }) => {
      // The drift check finds nothing (every item was written by today's code), the migration is applied once.
      expect(stdout.match(/0 drifted items/g)).toHaveLength(2);
      expect(stdout).toMatch(/001-search-backfill: APPLIED/);
    },
  },
  {
    file: 'docs/operations.md',
    marker: 'npm run -s token -- --operator',
    // "another's: FORBIDDEN": a tenant's admin reads its own tenant's usage only.
    errors: ['FORBIDDEN'],
    check: ({ answers }) => {
      expect(answers[0].data.tenantUsage).toEqual({ tenantId: 'demo', plan: expect.any(String) });
      expect(answers[1].data.tenantUsage).toEqual({ tenantId: 'demo', plan: expect.any(String) });
      expect(answers[2].data).toBeNull();
    },
  },
  {
    file: 'README.md',
    marker: 'npm run token -- --help',
    check: ({ stdout }) => {
      // Without -s, npm first prints the script it runs; then each command prints its token or its help.
      const lines = stdout.split('\n').filter((line) => line !== '' && !line.startsWith('> '));
      expect(jwtPayload(lines[0])).toMatchObject({ tenantId: 'acme', roles: ['editor'] });
      expect(jwtPayload(lines[1])).toMatchObject({ tenantId: 'acme', roles: ['viewer'], sub: 'alice' });
      const { iat, exp } = jwtPayload(lines[1]);
      expect(exp - iat).toBe(3600);
      // The operator's token names no tenant and is signed with the operator secret, not the tenants'.
      expect(jwtPayload(lines[2])).toEqual(expect.objectContaining({ roles: ['operator'], sub: 'ops-alice' }));
      expect(jwtPayload(lines[2]).tenantId).toBeUndefined();
      expect(lines[3]).toMatch(/^Usage: npm run token/);
    },
  },
  {
    file: 'README.md',
    marker: 'GetProjectLogs',
    // "run it again and the stale expectedVersion gets CONFLICT naming version 2"
    afterwards: (text) => `${text}\n${text.split('\n').find((line) => line.includes('updateProject('))}`,
    errors: ['CONFLICT'],
    check: ({ answers }) => {
      // createProject's answer went into P; the five others are printed, then the repeated update.
      expect(answers).toHaveLength(6);
      const [log, seed, usage, update, activity, again] = answers;
      expect(log.data.createLog.logId).toMatch(/^log_/);
      expect(seed.data.logs).toEqual([
        { logId: log.data.createLog.logId, materials: ['ultramarine', 'linseed oil'], timeSpentMinutes: 90 },
      ]);
      expect(usage.data.materialUsage).toMatchObject({ logCount: 1, totalMinutes: 90 });
      expect(update.data.updateProject.version).toBe(2);
      expect(activity.data.activity.nodes.length).toBeGreaterThanOrEqual(2);
      expect(again.errors[0].extensions).toMatchObject({ code: 'CONFLICT', currentVersion: 2 });
      expect(again.errors[0].message).toMatch(/version 2/);
    },
  },
  {
    file: 'docs/api.md',
    marker: 'watch-job.mjs',
    fill: async (ctx) => ({ 'job_01J…': await queuedJob(ctx) }),
    // The reader watches a job that runs: the test is its worker, once the example has rendered it.
    during: async (ctx, fills, running) => {
      await until(() => running.stdout().includes('"snapshot"'));
      const job = fills['job_01J…'];
      const worker = [Role.WORKER];
      await ctx.gql(`mutation { startStep(jobId: "${job}", stepName: "render") { seq } }`, {}, worker);
      for (const progress of [0.25, 0.5, 0.75]) {
        await ctx.gql(`mutation { reportStepProgress(jobId: "${job}", stepName: "render", progress: ${progress}) { seq } }`, {}, worker);
        // The example cuts its connection after its third event (this report's): the rest is
        // committed once it has reconnected, so that it resumes from a position rather than
        // receiving the last events in the frames it read before the cut, and exiting with them.
        if (progress === 0.5) await until(() => running.stdout().includes('"reconnected"'));
      }
      await ctx.gql(`mutation { completeStep(jobId: "${job}", stepName: "render") { seq } }`, {}, worker);
    },
    check: ({ answers }) => {
      const events = answers.filter((a) => a.position !== undefined);
      // Created at seq 1; started, three reports, completed: 2 … 6, each once, across the drop after 3.
      expect(events.map((e) => e.position)).toEqual([2, 3, 4, 5, 6]);
      expect(answers.filter((a) => a.reconnected)).toEqual([{ reconnected: 1, resumeAfter: 4 }]);
      expect(answers.at(-1).cached).toMatchObject({ seq: 6, status: 'COMPLETED' });
    },
  },
  {
    file: 'docs/files.md',
    marker: 'requestAssetUpload',
    files: { 'harbour.png': PNG },
    check: ({ answers, folder }) => {
      expect(answers.map((a) => Object.keys(a.data))).toEqual([['requestAssetUpload'], ['confirmAssetUpload'], ['asset']]);
      expect(answers[1].data.confirmAssetUpload).toEqual({ status: 'READY', latestVersion: 1 });
      expect(readFileSync(join(folder, 'copy.png'))).toEqual(PNG);
    },
  },
  {
    file: 'docs/streams.md',
    marker: 'follow-stream.mjs',
    fill: async (ctx) => ({ 'proj_01J…': await ctx.project() }),
    // "While it runs, change the project": once it is subscribed, the test writes six logs.
    during: async (ctx, fills, running) => {
      await until(() => running.stderr().includes('subscribed:'));
      for (let i = 1; i <= 6; i++)
        await ctx.gql(`mutation { createLog(projectId: "${fills['proj_01J…']}", input: { rawText: "change ${i}" }) { logId } }`);
    },
    stderr: /^subscribed: covered from position \d+ on$/,
    check: ({ answers }) => {
      expect(answers).toHaveLength(6);
      const positions = answers.map((a) => a.position);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(new Set(positions).size).toBe(6);
      expect(answers.every((a) => a.action === 'log.created')).toBe(true);
    },
  },
  {
    file: 'docs/streams.md',
    marker: 'text/event-stream',
    fill: async (ctx) => {
      const jobId = await queuedJob(ctx);
      await ctx.gql(`mutation { cancelJob(jobId: "${jobId}") { status } }`);
      return { 'job_01J…': jobId };
    },
    check: ({ stdout }) => {
      const data = stdout
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => JSON.parse(line.slice('data: '.length)));
      expect(data.map((d) => d.errors)).toEqual(data.map(() => undefined));
      expect(data[0].data.jobProgress).toMatchObject({ type: 'SUBSCRIBED', job: null });
      expect(stdout.trimEnd()).toMatch(/event: complete\ndata:$/);
    },
  },
];

/** Keyed by `file#OperationName`. */
const OPERATION_CASES: Record<string, OperationCase> = {
  // The server's own migrations and the drift check are operators' (docs/operations.md).
  'docs/operations.md#RunMigrations': {
    roles: [Role.OPERATOR],
    check: (data) => expect(data.runMigrations[0]).toMatchObject({ id: '001', name: 'search-backfill' }),
  },
  'docs/operations.md#Migrations': { roles: [Role.OPERATOR], check: (data) => expect(data.migrations[0].id).toBe('001') },
  'docs/operations.md#ModelDrift': { roles: [Role.OPERATOR], check: (data) => expect(data.modelDrift.drifted).toBe(0) },
  'docs/pipelines.md#Claim': {
    roles: [Role.WORKER],
    // The stage before added a scene and completed: render-scenes is open with one item to claim.
    setup: async (ctx) => {
      const jobId = await musicVideoAtGenerateScenes(ctx);
      const worker = [Role.WORKER];
      await ctx.gql(
        `mutation { addWorkItems(jobId: "${jobId}", stage: "render-scenes", items: [{ prompt: "Intro" }]) { seq } }`,
        {},
        worker,
      );
      await ctx.gql(
        `mutation { completeStep(jobId: "${jobId}", stepName: "generate-scenes", attempt: 1, outputs: { sceneCount: 1 }) { seq } }`,
        {},
        worker,
      );
    },
    check: (data) => expect(data.claimWork).toMatchObject({ step: { name: 'render-scenes' }, item: { sequence: 1, attempt: 1 } }),
  },
  // "$j, $n and $a: the claim's job.jobId, item.sequence and item.attempt"
  'docs/pipelines.md#Report': { roles: [Role.WORKER], variables: (state) => claimed(state.Claim) },
  // Plans are an operator's to set and read.
  'docs/operations.md#SetTenantPlan': { roles: [Role.OPERATOR], check: (data) => expect(data.setTenantPlan.plan).toBe('STUDIO') },
  'docs/operations.md#TenantUsage': {
    roles: [Role.OPERATOR],
    check: (data) => expect(data.tenantUsage).toMatchObject({ plan: 'STUDIO', limits: { projects: 20000 } }),
  },
  'docs/pipelines.md#Complete': {
    roles: [Role.WORKER],
    variables: (state) => claimed(state.Claim),
    check: (data) => expect(data.completeWorkItem.status).toBe('COMPLETED'),
  },
  // "$j: the id of the job whose generate-scenes you started"
  'docs/pipelines.md#AddScenes': {
    roles: [Role.WORKER],
    setup: async (ctx, state) => {
      state.jobId = await musicVideoAtGenerateScenes(ctx);
    },
    variables: (state) => ({ j: state.jobId }),
  },
  'docs/pipelines.md#CompleteGenerateScenes': {
    roles: [Role.WORKER],
    variables: (state) => ({ j: state.jobId }),
    check: (data) => expect(data.completeStep.currentStep).toBe('render-scenes'),
  },
  // A tenant without dead letters lists none and replays none: the operations run as written.
  'docs/pipelines.md#DeadLetters': { check: (data) => expect(data.deadLetters.nodes).toEqual([]) },
  'docs/pipelines.md#ReplayTimedOut': {
    check: (data) => expect(data.replayDeadLetters).toEqual({ reopened: 0, skipped: 0, remaining: false, cursor: null }),
  },
  'docs/pipelines.md#ReusableStages': {
    check: (data) => {
      const stage = (kind: string, name: string) =>
        data.jobKinds.find((k: { name: string }) => k.name === kind).stages.find((st: { name: string }) => st.name === name);
      expect(stage('3D_CHARACTER', 'text-to-image')).toEqual({ name: 'text-to-image', reuseTtlHours: 72, reuseKeyFields: null });
      expect(stage('3D_CHARACTER', 'rig').reuseTtlHours).toBeNull();
      expect(stage('MUSIC_VIDEO', 'render-scenes').reuseKeyFields).not.toContain('sceneId');
    },
  },
  'docs/pipelines.md#RunAfresh': {
    check: (data) => expect(data.createJob).toMatchObject({ reuse: false, currentStep: 'text-to-image' }),
  },
  'docs/search.md#Search': {
    // It finds what the README's first queries wrote: a log with ultramarine.
    setup: async (ctx) => {
      await ctx.gql(
        `mutation { createLog(projectId: "${await ctx.project()}", input: { rawText: "glazed the sky", materials: ["ultramarine"] }) { logId } }`,
      );
    },
    check: (data) => expect(data.search.nodes[0]).toMatchObject({ type: 'LOG', entity: { __typename: 'Log', materials: ['ultramarine'] } }),
  },
};

const claimed = (claim: any) => ({ j: claim.claimWork.job.jobId, n: claim.claimWork.item.sequence, a: claim.claimWork.item.attempt });

async function until(condition: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// --- Running ------------------------------------------------------------------------------------

/**
 * Commands a test must never run: they install packages (replacing the checkout's node_modules),
 * start a server that does not stop, run the test suite, build images or deploy. A block holding
 * one must say `<!-- not run: why -->`; an untagged one fails before anything of it runs.
 */
const NEVER_RUN =
  /\bnpm (?:install|i|ci|start|test)\b|\bnpm run (?:demo|synth|bench|test)|\bnpx (?:-y )?(?:node@|aws-cdk)|\bdocker\b|\baws\b|\bdist\/src\/main\.js\b/;

/** One shell block's limit: a block that waits for something that never comes fails instead of hanging. */
const SHELL_LIMIT_MS = 30_000;

function fillIn(text: string, fills: Record<string, string>, origin: string): string {
  let filled = text.replaceAll(DOC_ORIGIN, origin);
  for (const [placeholder, value] of Object.entries(fills)) filled = filled.replaceAll(placeholder, value);
  return filled;
}

/** Lines, not comments, that still hold a placeholder nobody filled. */
const leftOver = (text: string) =>
  text
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .filter((line) => LEFT_OVER.test(line));

/** The placeholders every page uses for "one of your projects' ids", filled with a new project. */
async function projectFills(text: string, ctx: Context): Promise<Record<string, string>> {
  const fills: Record<string, string> = {};
  for (const placeholder of ['proj_…', 'proj_01J…']) if (text.includes(placeholder)) fills[placeholder] = await ctx.project();
  return fills;
}

function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv): { running: Running; done: Promise<Run>; stop(): void } {
  // A group of its own, so that a block that overruns is stopped with everything it started.
  const child = processFixture(spawn('bash', ['-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }), {
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch (error) {
      // The group ended on its own in the meantime: nothing is left to stop.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, SHELL_LIMIT_MS);
  const done = new Promise<Run>((resolve) =>
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr, timedOut });
    }),
  );
  return { running: { stdout: () => stdout, stderr: () => stderr }, done, stop };
}

/**
 * The variables a block gives an operation in a `# variables: {…}` comment after it (what a reader
 * puts in GraphiQL's Variables pane), before the next operation.
 */
function variablesInBlock(text: string, operation: OperationDefinitionNode, next: OperationDefinitionNode | undefined) {
  const region = text.slice(operation.loc!.end, next?.loc?.start ?? text.length);
  const comment = /^#\s*variables:\s*(\{.*\})\s*$/m.exec(region);
  return comment ? (JSON.parse(comment[1]) as Record<string, unknown>) : {};
}

function operationsOf(document: DocumentNode): OperationDefinitionNode[] {
  return document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
}

/** Schema excerpts: every type and field a block declares is in schema.graphql with the same type. */
function sdlMismatches(definitions: readonly DefinitionNode[]): string[] {
  const problems: string[] = [];
  for (const definition of definitions) {
    if (!('name' in definition) || !definition.name || definition.kind === Kind.FRAGMENT_DEFINITION) continue;
    const type = schema.getType(definition.name.value);
    if (!type) {
      problems.push(`no type ${definition.name.value}`);
      continue;
    }
    if (!('fields' in definition) || !definition.fields) continue;
    if (!isObjectType(type) && !isInterfaceType(type) && !isInputObjectType(type)) {
      problems.push(`${type.name} has no fields`);
      continue;
    }
    const fields = type.getFields();
    for (const field of definition.fields) {
      const actual = fields[field.name.value];
      if (!actual) problems.push(`no field ${type.name}.${field.name.value}`);
      else if (print(field.type) !== String(actual.type))
        problems.push(`${type.name}.${field.name.value} is ${String(actual.type)}, not ${print(field.type)}`);
    }
  }
  return problems;
}

/** GraphQL that blocks which are not run quote: JSON `"query":"…"` strings and `query: \`…\`` templates. */
function quotedGraphQL(text: string): string[] {
  const json = [...text.matchAll(/"query"\s*:\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
  const templates = [...text.matchAll(/query:\s*`([^`]*)`/g)].map((m) => m[1]);
  return [...json, ...templates];
}

describe('the snippets of README.md and docs/*.md', () => {
  let server: TestServer;
  let ctx: Context;
  /** The README's first lines of "First queries" (URL, TOKEN, gql): the shell every other page's shell block runs after. */
  let prelude: string;

  /** A token of `roles`: the operator's (no tenant, the operator issuer's) for Role.OPERATOR, else tenant `demo`'s. */
  const tokenFor = (roles: Role[]) => (roles.includes(Role.OPERATOR) ? server.operatorToken() : server.token(TENANT, roles));

  beforeAll(async () => {
    server = await startTestServer();
    ctx = {
      server,
      async gql(query, variables = {}, roles = [Role.EDITOR]) {
        const { body } = await server.raw({ query, variables }, await tokenFor(roles));
        if (body.errors) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
        return body.data;
      },
      async project() {
        return (await ctx.gql('mutation { createProject(input: { title: "For the docs" }) { projectId } }')).createProject.projectId;
      },
    };
    const firstQueries = BLOCKS.find((b) => b.file === 'README.md' && b.text.includes('GetProjectLogs'))!.text;
    prelude = firstQueries.split('\n\n')[0];
  });

  it('every block is run, or says in the markdown why not', () => {
    const neither = BLOCKS.filter((b) => !runnable(b) && !b.excuse).map(
      (b) => `${where(b)}: run it (a sh or graphql block) or put <!-- not run: why --> on the line before it`,
    );
    const unsafe = BLOCKS.filter((b) => runnable(b) && SHELL.has(b.lang) && NEVER_RUN.test(b.text)).map(
      (b) =>
        `${where(b)}: holds "${NEVER_RUN.exec(b.text)![0]}", which a test must not run: put <!-- not run: why --> on the line before it`,
    );
    expect([...neither, ...unsafe]).toEqual([]);
    // The other pages' shell blocks say they run in the shell of the README's First queries.
    expect(prelude).toMatch(/^URL=.*\nTOKEN=.*\ngql\(\) \{/);
    // Each case of this test names one block that runs, so that a case never outlives its block.
    const unmatched = SHELL_CASES.filter(
      (c) => BLOCKS.filter((b) => b.file === c.file && runnable(b) && SHELL.has(b.lang) && b.text.includes(c.marker)).length !== 1,
    ).map((c) => `${c.file}: no single shell block holds "${c.marker}"`);
    const operations = new Set(
      BLOCKS.filter((b) => runnable(b) && GRAPHQL.has(b.lang)).flatMap((b) =>
        operationsOf(parse(b.text)).map((o) => `${b.file}#${o.name?.value}`),
      ),
    );
    const unknown = Object.keys(OPERATION_CASES).filter((key) => !operations.has(key));
    expect([...unmatched, ...unknown]).toEqual([]);
  });

  it('GraphQL quoted in blocks that are not run fits the schema', () => {
    const problems = BLOCKS.filter((b) => !runnable(b)).flatMap((b) =>
      quotedGraphQL(b.text).flatMap((query) => {
        try {
          return validate(schema, parse(query)).map((e) => `${where(b)}: ${e.message}`);
        } catch (error) {
          return [`${where(b)}: ${(error as Error).message}`];
        }
      }),
    );
    expect(problems).toEqual([]);
  });

  it('an excerpt that names its source file ("not run: TypeScript, from src/…") is in that file, line by line', () => {
    const problems = BLOCKS.flatMap((b) => {
      const source = /\bfrom (src\/\S+\.ts)\b/.exec(b.excuse ?? '')?.[1];
      if (!source) return [];
      const code = readFileSync(join(ROOT, source), 'utf8');
      // The docs' comments explain the excerpt; the code itself must be the file's.
      return b.text
        .split('\n')
        .map((line) => line.replace(/\s+\/\/ .*$/, '').trim())
        .filter((line) => line !== '' && !code.includes(line))
        .map((line) => `${where(b)}: not in ${source}: ${line}`);
    });
    expect(problems).toEqual([]);
  });

  it('a block that another test runs ("not run: …; test/….test.ts runs it as written") is read by that test', () => {
    const problems = BLOCKS.flatMap((b) => {
      const runner = /\b(test\/\S+\.test\.ts)\b[^;]*\bruns it as written/.exec(b.excuse ?? '')?.[1];
      if (!runner) return [];
      if (!existsSync(join(ROOT, runner))) return [`${where(b)}: ${runner} does not exist`];
      return readFileSync(join(ROOT, runner), 'utf8').includes(`'${b.file}'`) ? [] : [`${where(b)}: ${runner} never reads ${b.file}`];
    });
    expect(problems).toEqual([]);
    // The worker SDKs' page is the one that says so today; a wording that stops matching fails here.
    expect(BLOCKS.filter((b) => b.file === 'docs/workers.md' && /runs it as written/.test(b.excuse ?? '')).length).toBe(5);
  });

  for (const block of BLOCKS.filter((b) => runnable(b) && SHELL.has(b.lang))) {
    it(`${where(block)} runs as written`, async () => {
      expect(NEVER_RUN.exec(block.text)?.[0]).toBeUndefined();
      const found = SHELL_CASES.find((c) => c.file === block.file && block.text.includes(c.marker));
      const fills = { ...(await projectFills(block.text, ctx)), ...(await found?.fill?.(ctx)) };
      let text = fillIn(block.text, fills, new URL(server.url).origin);
      expect(leftOver(text)).toEqual([]);
      if (found?.afterwards) text = found.afterwards(text);
      const folder = tempDir('artissist-docs-');
      for (const [name, content] of Object.entries(found?.files ?? {})) writeFileSync(join(folder, name), content);
      // The README's own blocks stand alone; another page's run in the README's shell (URL, TOKEN, gql).
      const script = [
        'set -e',
        `cd ${JSON.stringify(ROOT)}`,
        ...(block.file === 'README.md' ? [] : [fillIn(prelude, {}, new URL(server.url).origin)]),
        ...(found?.files ? [`cd ${JSON.stringify(folder)}`] : []),
        text,
      ].join('\n');
      // AUTH_JWT_SECRET is the test server's secret, which `npm run token` signs with as the README
      // says; DATA_DIR is its data folder, so no other server started from this checkout is found.
      const { running, done } = runBash(script, ROOT, {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        AUTH_JWT_SECRET: TEST_SECRET,
        AUTH_OPERATOR_SECRET: TEST_OPERATOR_SECRET,
        DATA_DIR: server.config.dataDir,
      });
      // Should what the reader does fail, the fixture registry ends the block's process group.
      await found?.during?.(ctx, fills, running);
      const run = await done;
      const unexpectedStderr = run.stderr
        .split('\n')
        .filter((line) => line !== '')
        .filter((line) => !found?.stderr?.test(line));
      expect({ status: run.status, timedOut: run.timedOut, stderr: unexpectedStderr }).toEqual({
        status: 0,
        timedOut: false,
        stderr: [],
      });
      const answers = run.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line));
      const codes = answers.filter((a) => a.errors).map((a) => a.errors[0].extensions?.code ?? a.errors[0].message);
      expect(codes).toEqual(found?.errors ?? []);
      await found?.check({ ...run, answers, folder }, ctx, fills);
    });
  }

  for (const block of BLOCKS.filter((b) => runnable(b) && GRAPHQL.has(b.lang))) {
    it(`${where(block)} ${/^\s*(query|mutation|subscription|\{)/m.test(block.text) ? 'runs' : 'fits the schema'} as written`, async () => {
      const fills = await projectFills(block.text, ctx);
      const text = fillIn(block.text, fills, new URL(server.url).origin);
      const document = parse(text);
      const operations = operationsOf(document);
      if (operations.length === 0) {
        // Fragments and schema excerpts: validated, not run.
        const rules = specifiedRules.filter((rule) => rule !== NoUnusedFragmentsRule);
        const executable = { ...document, definitions: document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION) };
        expect([
          ...leftOver(text),
          ...validate(schema, executable, rules).map((e) => e.message),
          ...sdlMismatches(document.definitions),
        ]).toEqual([]);
        return;
      }
      // The block as a reader pastes it into GraphiQL: valid as a whole, each operation run in turn.
      expect([...leftOver(text), ...validate(schema, document).map((e) => e.message)]).toEqual([]);
      const state: Record<string, any> = {};
      for (const [index, operation] of operations.entries()) {
        const name = operation.name?.value;
        const found = OPERATION_CASES[`${block.file}#${name}`];
        if (operation.operation === 'subscription')
          throw new Error(`${where(block)}: a subscription; run it over SSE here before documenting one`);
        await found?.setup?.(ctx, state);
        const { status, body } = await server.raw(
          {
            query: text,
            operationName: name,
            variables: { ...variablesInBlock(text, operation, operations[index + 1]), ...found?.variables?.(state) },
          },
          await tokenFor(found?.roles ?? [Role.EDITOR]),
        );
        expect({ operation: name ?? '(anonymous)', status, errors: body.errors }).toEqual({
          operation: name ?? '(anonymous)',
          status: 200,
          errors: undefined,
        });
        found?.check?.(body.data, state);
        if (name) state[name] = body.data;
      }
    });
  }
});

/** @long Started first on a clean clone (test/support/sequencer.js): about a minute of worker processes waiting out leases. */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { signDevToken } from '../../src/auth/jwt';
import { Worker } from '../../sdk/typescript/src/index';
import { typedModule } from '../../sdk/typescript/src/typegen';
import { kindViews } from '../../src/job/job.kinds';
import { blocksOf } from '../support/doc-blocks';
import { tempDir } from '../support/fixtures';
import { ROOT } from '../support/processes';
import { gqlAs, batchJob, PYTHON_WORKER, type Proc, startWorker } from '../support/worker-process';
import { Role, startTestServer, TEST_SECRET, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';

/*
 * The worker SDKs (sdk/python, sdk/typescript) against the real server: Python worker processes
 * (python3, the standard library) and a TypeScript worker process claim, renew, report and stop as
 * docs/workers.md says, and survive what workers meet: a SIGKILL mid-item, a cancellation, SIGTERM.
 * Leases are 2 s (JOB_LEASE_SECONDS), so a lease that runs out is waited for, not faked.
 */

const LEASE_SECONDS = 2;
/**
 * Each test's tenant, its own: a tenant-bound worker serves every job of its tenant, so work a
 * failed test left behind never reaches the next test's workers.
 */
let TENANT = '';
let tenants = 0;

/** The blocks of docs/workers.md that say this file runs them, by language (one each). */
const DOC = 'docs/workers.md';
const docBlocks = blocksOf(DOC).filter((b) => b.excuse?.includes('test/e2e/worker-sdk.test.ts'));
/** The doc's block of language `lang` holding `marker`. */
const docBlock = (lang: string, marker = '') => docBlocks.find((b) => b.lang === lang && b.text.includes(marker))!.text;

/**
 * Writes the docs' TypeScript worker into a folder of its own, where the SDK is linked as `npm
 * install <checkout>/sdk/typescript` links it, and type-checks it there with tsc --strict. Resolves
 * the folder and tsc's outcome: its output, or the error it failed with (its exit code and
 * diagnostics on stdout); it never rejects. Not spawnSync: the test server runs in this process,
 * and must go on answering meanwhile. tsc takes 3 s of a core, and far longer on a machine as busy
 * as CI's.
 */
async function typeCheckDocWorker(): Promise<{
  folder: string;
  tsc: { stdout: string; stderr: string } | { code: number; stdout: string; stderr: string };
}> {
  const folder = tempDir('artissist-worker-doc-');
  writeFileSync(join(folder, 'worker.mts'), docBlock('ts'));
  mkdirSync(join(folder, 'node_modules/@artissist'), { recursive: true });
  symlinkSync(join(ROOT, 'sdk/typescript'), join(folder, 'node_modules/@artissist/worker'));
  const tsc = await promisify(execFile)(
    process.execPath,
    [
      join(ROOT, 'node_modules/typescript/bin/tsc'),
      ...['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext'],
      ...['--types', 'node', '--typeRoots', join(ROOT, 'node_modules/@types'), 'worker.mts'],
    ],
    { cwd: folder, encoding: 'utf8', timeout: 90_000 },
  ).catch((error: { code: number; stdout: string; stderr: string }) => error);
  return { folder, tsc };
}
/** The type-check of the docs' TypeScript worker, started by the file's beforeAll. */
let docTypeCheck: ReturnType<typeof typeCheckDocWorker>;

describe('the worker SDKs against a real server', () => {
  let server: TestServer;
  let editor: string;
  let projectId: string;
  const gql = (query: string, variables: Record<string, unknown> = {}, token = editor) => gqlAs(server, token, query, variables);
  const workerToken = (sub: string) => server.token(TENANT, [Role.WORKER], sub);
  const python = async (sub: string, env: Record<string, string> = {}) =>
    startWorker('python3', [PYTHON_WORKER], { ARTISSIST_URL: server.url, ARTISSIST_TOKEN: await workerToken(sub), ...env });
  /** A BATCH job of items with these params (see test/fixtures/workers/batch_worker.py). */
  const batch = (params: Record<string, unknown>[]) => batchJob(gql, TENANT, projectId, params);
  const ITEM = 'sequence status attempt worker leaseExpiresAt outputs error { code message }';
  const jobOf = async (jobId: string) =>
    (
      await gql(`query($j: ID!) { job(jobId: $j) { status itemCounts { completed failed } items(first: 50) { nodes { ${ITEM} } } } }`, {
        j: jobId,
      })
    ).job;
  /** The job once it finished; failing after 30 s with the job's items and what the `workers` printed. */
  const finished = (jobId: string, ...workers: Proc[]) => {
    let last: any;
    return waitFor(
      async () => {
        last = await jobOf(jobId);
        return ['COMPLETED', 'FAILED', 'CANCELLED'].includes(last.status) && last;
      },
      () => `job ${jobId} finished (now ${JSON.stringify(last)}); the workers printed:\n${workers.map((w) => w.output()).join('\n---\n')}`,
    );
  };

  beforeAll(async () => {
    // The type-check of the docs' TypeScript worker (its own test, last) starts now: tsc takes some
    // seconds of a core, which it spends while the tests before it mostly wait out leases.
    docTypeCheck = typeCheckDocWorker();
    server = await startTestServer({ env: { JOB_LEASE_SECONDS: String(LEASE_SECONDS) } });
  });

  beforeEach(async () => {
    TENANT = `sdk-${++tenants}`;
    editor = await server.token(TENANT, [Role.EDITOR], 'artist');
    projectId = (await gql('mutation { createProject(input: { title: "Workers" }) { projectId } }')).createProject.projectId;
  });

  it("two Python workers complete a BATCH job's items; a handler busy in CPU-bound Python for twice the lease keeps it; outputs lacking a required field fail the item (OUTPUTS_MISSING) on each attempt the claim named", async () => {
    const jobId = await batch([{}, {}, { busy: { 1: 2 * LEASE_SECONDS + 0.5 } }, {}, { omit: true }, {}, {}, {}]);
    const workers = [await python('py-1'), await python('py-2')];
    const job = await finished(jobId, ...workers);
    expect(job.status).toBe('COMPLETED');
    const bySequence = new Map<number, any>(job.items.nodes.map((item: any) => [item.sequence, item]));
    // The busy item kept its lease throughout: one attempt, completed by the worker that started it.
    expect(bySequence.get(3)).toMatchObject({ status: 'COMPLETED', attempt: 1, error: null });
    // The item whose handler left out `result` failed twice (BATCH allows 2 attempts), each attempt reported as the one held.
    expect(bySequence.get(5)).toMatchObject({ status: 'FAILED', attempt: 2, error: { code: 'OUTPUTS_MISSING' } });
    expect(bySequence.get(5).error.message).toContain('result');
    for (const sequence of [1, 2, 3, 4, 6, 7, 8])
      expect(bySequence.get(sequence)).toMatchObject({
        status: 'COMPLETED',
        outputs: { result: `tenants/${TENANT}/out/${sequence}.png` },
      });
    expect(job.itemCounts).toEqual({ completed: 7, failed: 1 });
    for (const w of workers) w.child.kill('SIGTERM');
    for (const w of workers) expect(await w.exited).toMatchObject({ code: 0 });
  });

  it('a Python worker holds a single step for twice its lease (renewed by reportStepProgress) beside an idle worker, and completes it with the attempt it claimed', async () => {
    const { jobId } = (
      await gql('mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
        input: { projectId, kind: 'SDK_STEPS', steps: ['render'], inputs: { seconds: 2 * LEASE_SECONDS + 0.5 } },
      })
    ).createJob;
    const workers = [await python('py-step'), await python('py-idle')];
    const job = await waitFor(async () => {
      const { job } = await gql('query($j: ID!) { job(jobId: $j) { status steps { name status attempt worker outputs } } }', { j: jobId });
      return job.status !== 'RUNNING' && job.status !== 'QUEUED' && job;
    }, 'the step finished');
    expect(job.status).toBe('COMPLETED');
    expect(job.steps).toEqual([
      { name: 'render', status: 'COMPLETED', attempt: 1, worker: expect.stringMatching(/^py-/), outputs: { frames: 24 } },
    ]);
    // One claim of the step in all: the idle worker never took it over.
    expect(workers.flatMap((w) => w.lines.filter((l) => l.event === 'claimed'))).toHaveLength(1);
    for (const w of workers) w.child.kill('SIGTERM');
    for (const w of workers) expect(await w.exited).toMatchObject({ code: 0 });
  });

  it("a pool worker's Python worker completes any tenant's BATCH items, passing each claim's lease", async () => {
    const jobId = await batch([{}, {}, {}]);
    // The fixture serves SDK_STEPS too: a pool that does not serve a stage its worker claims is refused for good (FORBIDDEN).
    const pool = await signDevToken(new TextEncoder().encode(TEST_SECRET), { sub: 'gpu-py', pool: { kinds: ['BATCH', 'SDK_STEPS'] } });
    // Run as docs/workers.md says a module that declares its worker runs: python3 -m artissist_worker run module:worker.
    const worker = startWorker('python3', ['-m', 'artissist_worker', 'run', 'batch_worker:worker'], {
      ARTISSIST_URL: server.url,
      ARTISSIST_TOKEN: pool,
      PYTHONPATH: `${join(ROOT, 'sdk/python')}:${join(ROOT, 'test/fixtures/workers')}`,
    });
    const job = await finished(jobId, worker);
    expect(job).toMatchObject({ status: 'COMPLETED', itemCounts: { completed: 3, failed: 0 } });
    expect(worker.lines.filter((l) => l.event === 'claimed').every((l) => l.lease === true)).toBe(true);
    expect(new Set(job.items.nodes.map((item: any) => item.outputs.metrics.pid))).toEqual(new Set([worker.child.pid]));
    // It logs what it does, as docs/workers.md says: what it serves, and each unit it completed.
    expect(worker.output()).toMatch(/INFO artissist_worker: serving BATCH\/\S+.* with 1 slot\(s\)/);
    expect(worker.output().match(new RegExp(`${jobId}/\\S+ #\\d+ attempt 1 completed`, 'g'))).toHaveLength(3);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toMatchObject({ code: 0 });
  });

  it('a worker SIGKILLed mid-item loses it: another worker takes it over as attempt 2 once the lease runs out, and completes it', async () => {
    const jobId = await batch([{ hold: { 1: 60 } }]);
    const first = await python('py-killed');
    await first.until((l) => l.event === 'claimed' && l.attempt === 1, 'claim of attempt 1');
    first.child.kill('SIGKILL');
    expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });
    const second = await python('py-next');
    await second.until((l) => l.event === 'returned' && l.attempt === 2, 'attempt 2 returned');
    const job = await finished(jobId, second);
    expect(job.items.nodes[0]).toMatchObject({
      status: 'COMPLETED',
      attempt: 2,
      worker: 'py-next',
      outputs: { metrics: { pid: second.child.pid, attempt: 2 } },
    });
    second.child.kill('SIGTERM');
    expect(await second.exited).toMatchObject({ code: 0 });
  });

  it('cancelling the job reaches the running Python handler (its cancelled event) within a renewal, and nothing it returns is reported', async () => {
    const jobId = await batch([{ hold: { 1: 60 } }, { hold: { 1: 60 } }]);
    const worker = await python('py-cancel');
    await worker.until((l) => l.event === 'claimed', 'a claim');
    await gql('mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: jobId });
    const cancelledAt = Date.now();
    const heard = await worker.until((l) => l.event === 'cancelled', 'the handler told of the cancellation');
    expect(heard.code).toBe('JOB_CANCELLED');
    // The lease is renewed every third of it, and the renewal is what hears the cancellation.
    const latencyMs = heard.at * 1000 - cancelledAt;
    expect(latencyMs).toBeLessThan(LEASE_SECONDS * 1000);
    const job = await jobOf(jobId);
    expect(job.status).toBe('CANCELLED');
    expect(job.items.nodes.filter((item: any) => item.status === 'COMPLETED' || item.status === 'FAILED')).toEqual([]);
    // The worker goes on serving (no other work now) and stops at once when asked: nothing is running.
    const termAt = Date.now();
    worker.child.kill('SIGTERM');
    const exit = await worker.exited;
    expect(exit.code).toBe(0);
    expect(exit.at - termAt).toBeLessThan(3000);
  });

  it('SIGTERM lets a running Python handler finish within the grace period, then the process exits 0', async () => {
    const jobId = await batch([{ hold: { 1: 1.5 } }]);
    const worker = await python('py-term', { GRACE_SECONDS: '20' });
    await worker.until((l) => l.event === 'claimed', 'a claim');
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toMatchObject({ code: 0 });
    expect(worker.lines.find((l) => l.event === 'exited')).toMatchObject({ completed: 1 });
    expect((await jobOf(jobId)).items.nodes[0]).toMatchObject({ status: 'COMPLETED', attempt: 1, worker: 'py-term' });
  });

  it('SIGTERM past the grace period gives the work up: the handler is told, the item is handed back, the process exits, and another worker takes it over as attempt 2', async () => {
    const jobId = await batch([{ hold: { 1: 60 } }]);
    const worker = await python('py-give-up', { GRACE_SECONDS: '0.5' });
    await worker.until((l) => l.event === 'claimed', 'a claim');
    const termAt = Date.now();
    worker.child.kill('SIGTERM');
    const exit = await worker.exited;
    expect(exit.code).toBe(0);
    expect(exit.at - termAt).toBeLessThan(5000);
    expect(worker.lines.find((l) => l.event === 'cancelled')).toMatchObject({ code: 'WORKER_STOPPED' });
    // Handed back before it exited: waiting, for attempt 2, claimable at once.
    expect((await jobOf(jobId)).items.nodes[0]).toMatchObject({ status: 'PENDING', attempt: 2 });
    const next = await python('py-after');
    await next.until((l) => l.event === 'returned' && l.attempt === 2, 'attempt 2 returned');
    expect((await finished(jobId, next)).items.nodes[0]).toMatchObject({ status: 'COMPLETED', attempt: 2, worker: 'py-after' });
    next.child.kill('SIGTERM');
    await next.exited;
  });

  it('a TypeScript worker process runs a MUSIC_VIDEO job through every stage, generate-scenes adding the scenes it renders', async () => {
    const worker = startWorker(process.execPath, [join(ROOT, 'dist/sdk/typescript/examples/music-video.js')], {
      ARTISSIST_URL: server.url,
      ARTISSIST_TOKEN: await workerToken('ts-mv'),
      SCENES: '4',
    });
    const { jobId } = (
      await gql('mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
        input: {
          projectId,
          kind: 'MUSIC_VIDEO',
          inputs: { characterImage: `tenants/${TENANT}/c.png`, audioBackingTrack: `tenants/${TENANT}/a.mp3`, prompt: 'harbour' },
        },
      })
    ).createJob;
    const job = await waitFor(async () => {
      const { job } = await gql(
        `query($j: ID!) { job(jobId: $j) { status steps { name status attempt outputs } itemCounts { total completed } } }`,
        { j: jobId },
      );
      return ['COMPLETED', 'FAILED'].includes(job.status) && job;
    }, 'the music video finished');
    expect(job).toMatchObject({ status: 'COMPLETED', itemCounts: { total: 4, completed: 4 } });
    expect(job.steps.map((s: any) => [s.name, s.status, s.attempt])).toEqual([
      ['generate-scenes', 'COMPLETED', 1],
      ['render-scenes', 'COMPLETED', 1],
      ['compose', 'COMPLETED', 1],
    ]);
    expect(job.steps[2].outputs).toEqual({ video: `tenants/${TENANT}/video/${jobId}.mp4` });
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toMatchObject({ code: 0 });
    expect(worker.lines.find((l) => l.event === 'exited')).toMatchObject({ completed: 6 });
  });

  it("the TypeScript SDK aborts a running handler's signal on cancellation, and stop() gives up work past the grace period", async () => {
    const jobId = await batch([{ n: 1 }, { n: 2 }]);
    const aborted: string[] = [];
    const worker = new Worker({
      url: server.url,
      token: await workerToken('ts-cancel'),
      graceMs: 300,
      handleSignals: false,
      log: () => {},
    });
    let claimed!: () => void;
    const claimedOnce = new Promise<void>((resolve) => (claimed = resolve));
    worker.stage('BATCH', 'process', async (work) => {
      claimed();
      await new Promise((resolve) => work.signal.addEventListener('abort', resolve));
      aborted.push(`${work.sequence}:${(work.signal.reason as { code: string }).code}`);
      return { result: 'never reported' };
    });
    const running = worker.run();
    await claimedOnce;
    await gql('mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: jobId });
    await waitFor(async () => aborted.length === 1, 'the handler aborted', { ms: 5000 });
    expect(aborted[0]).toMatch(/^\d:JOB_CANCELLED$/);
    // A second job's item is held when stop() is asked for: it is given up after the grace period.
    const second = await batch([{ n: 3 }]);
    await waitFor(async () => aborted.length === 1 && (await jobOf(second)).items.nodes[0].status === 'RUNNING', 'the second claim');
    worker.stop();
    await running;
    expect(aborted[1]).toBe('1:WORKER_STOPPED');
    expect((await jobOf(jobId)).items.nodes.filter((i: any) => i.status === 'COMPLETED')).toEqual([]);
    // Handed back, the second job's item is claimable at once: cancelled, so that no later test's pool worker meets it.
    expect((await jobOf(second)).items.nodes[0]).toMatchObject({ status: 'PENDING', attempt: 2 });
    await gql('mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: second });
  });

  it('the TypeScript SDK logs a throwing handler with its stack, and reports refused outputs in the server’s words, without its code', async () => {
    const jobId = await batch([{ n: 1 }, { n: 2 }]);
    const logged: string[] = [];
    const worker = new Worker({
      url: server.url,
      token: await workerToken('ts-failing'),
      handleSignals: false,
      log: (level, message) => logged.push(`${level}: ${message}`),
    });
    worker.stage('BATCH', 'process', async (work) => {
      if (work.inputs.params && (work.inputs.params as { n: number }).n === 1) throw new Error('boom from the handler');
      return { result: 42 };
    });
    const running = worker.run();
    // Each item's first attempt failed (BATCH waits a second before the next).
    await waitFor(async () => (await jobOf(jobId)).items.nodes.every((i: any) => i.error !== null), 'both first attempts failed', {
      ms: 10_000,
    });
    worker.stop();
    await running;
    const errors = (await jobOf(jobId)).items.nodes.map((i: any) => [i.sequence, i.error.code, i.error.message]);
    expect(errors).toEqual([
      [1, 'HANDLER_ERROR', 'Error: boom from the handler'],
      [2, 'OUTPUTS_REFUSED', 'outputs.result must be a text.'],
    ]);
    expect(logged).toContainEqual(
      expect.stringMatching(/^error: the handler of BATCH\/process failed: Error: boom from the handler\n\s+at /),
    );
    await gql('mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: jobId });
  });

  it("the TypeScript SDK serves a pool worker (each report with its claim's lease), and a worker whose claims are refused for good stops with the error", async () => {
    const jobId = await batch([{ n: 1 }, { n: 2 }]);
    const pool = await signDevToken(new TextEncoder().encode(TEST_SECRET), { sub: 'gpu-ts', pool: { kinds: ['BATCH'] } });
    const leases: (string | undefined)[] = [];
    const worker = new Worker({ url: server.url, token: pool, handleSignals: false, log: () => {} }).stage('BATCH', 'process', (work) => {
      leases.push(work.lease);
      return { result: `tenants/${work.tenantId}/out/${work.sequence}.png` };
    });
    const running = worker.run();
    expect((await finished(jobId)).itemCounts).toEqual({ completed: 2, failed: 0 });
    worker.stop();
    await running;
    expect(leases).toEqual([expect.any(String), expect.any(String)]);
    // An editor's token may not claim: waiting cannot mend that, so run() rejects at the first claim.
    const editorWorker = new Worker({ url: server.url, token: editor, handleSignals: false, log: () => {} }).stage(
      'BATCH',
      'process',
      () => ({}),
    );
    await expect(editorWorker.run()).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  describe(`the workers of ${DOC}, as written`, () => {
    /** A BATCH job of tenant demo (the docs' token's tenant) with `count` items. */
    const demoJob = async (count: number, worker: () => Proc) => {
      const demo = await server.token('demo', [Role.EDITOR]);
      const project = (await gql('mutation { createProject(input: { title: "Docs workers" }) { projectId } }', {}, demo)).createProject
        .projectId;
      const { jobId } = (
        await gql(
          'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }',
          {
            input: {
              projectId: project,
              kind: 'BATCH',
              inputs: { label: 'docs' },
              items: Array.from({ length: count }, (_, n) => ({ source: `tenants/demo/in/${n}.png` })),
            },
          },
          demo,
        )
      ).createJob;
      const done = () =>
        waitFor(
          async () => {
            const { job } = await gql(`query($j: ID!) { job(jobId: $j) { status items { nodes { ${ITEM} } } } }`, { j: jobId }, demo);
            return job.status !== 'RUNNING' && job;
          },
          () => `the docs job finished; the worker printed:\n${worker().output()}`,
        );
      return { jobId, done };
    };

    it('are a Python worker, its shell lines, a TypeScript worker and the types commands of each SDK', () => {
      expect(docBlocks.map((b) => b.lang)).toEqual(['python', 'sh', 'ts', 'sh', 'sh']);
    });

    it("the types command writes a module whose TypedDicts require each stage's required fields", async () => {
      // Run from a folder of its own that holds the repository's sdk/ as the repository's folder does, so kinds_types.py lands there.
      const folder = tempDir('artissist-worker-doc-');
      symlinkSync(join(ROOT, 'sdk'), join(folder, 'sdk'));
      const script = `set -e\nURL=${server.url}\nTOKEN=${await server.token('demo', [Role.EDITOR])}\n${docBlock('sh', 'artissist_worker types')}`;
      const run = startWorker('bash', ['-c', script], {}, { cwd: folder });
      expect(await run.exited).toMatchObject({ code: 0 });
      const check = startWorker(
        'python3',
        [
          '-c',
          'import json, kinds_types as k; print(json.dumps({"required": [sorted(c.__required_keys__) for c in (k.MusicVideoRenderScenesOutputs, k.BatchProcessInputs, k.MusicVideoComposeInputs)]}))',
        ],
        { PYTHONPATH: folder },
        { cwd: folder },
      );
      expect(await check.exited).toMatchObject({ code: 0 });
      expect(check.lines).toEqual([{ required: [['videoClip'], ['source'], ['audioBackingTrack', 'characterImage']] }]);
    });

    it("the TypeScript SDK's types command writes the module that the declarations make (test/unit/worker-sdk-types.test.ts compiles it)", async () => {
      // From a folder that holds the repository's sdk/ as the repository's folder does, so kinds.ts lands there.
      const folder = tempDir('artissist-worker-doc-');
      symlinkSync(join(ROOT, 'sdk'), join(folder, 'sdk'));
      const script = `set -e\nURL=${server.url}\nTOKEN=${await server.token('demo', [Role.EDITOR])}\n${docBlock('sh', 'artissist-worker.js types')}`;
      const run = startWorker('bash', ['-c', script], {}, { cwd: folder });
      expect(await run.exited).toMatchObject({ code: 0 });
      // jobKinds over HTTP and the declarations in this process (src/job/job.kinds.ts) make the same module.
      expect(readFileSync(join(folder, 'kinds.ts'), 'utf8')).toBe(typedModule(kindViews()));
    });

    it('the Python worker, started by its shell lines from the repository, completes a BATCH job and stops on Ctrl-C with exit 0', async () => {
      const folder = tempDir('artissist-worker-doc-');
      writeFileSync(join(folder, 'worker.py'), docBlock('python'));
      let shell!: Proc;
      const { done } = await demoJob(3, () => shell);
      // After the README's first queries (URL set); "saved as worker.py" is the file this test saved.
      const script = `set -e\nURL=${server.url}\n${docBlock('sh', 'worker.py').replace('worker.py', join(folder, 'worker.py'))}`;
      // npm run token signs with the test server's secret, and finds its data folder, as docs-snippets.test.ts runs it.
      shell = startWorker('bash', ['-c', script], { AUTH_JWT_SECRET: TEST_SECRET, DATA_DIR: server.config.dataDir }, { detached: true });
      const job = await done();
      expect(job.status).toBe('COMPLETED');
      expect(job.items.nodes.map((i: any) => [i.status, i.outputs.result])).toEqual(
        [1, 2, 3].map((n) => ['COMPLETED', `tenants/demo/out/${n}.png`]),
      );
      // Ctrl-C reaches the terminal's foreground job: the shell and the worker, its process group.
      process.kill(-shell.child.pid!, 'SIGINT');
      expect(await shell.exited).toMatchObject({ code: 0 });
    });

    it('the TypeScript worker type-checks with tsc --strict, runs with node, completes a BATCH job and stops on SIGTERM with exit 0', async () => {
      const { folder, tsc } = await docTypeCheck;
      // A failure rejects with the exit code and tsc's diagnostics on stdout.
      expect({ code: 'code' in tsc ? tsc.code : 0, output: tsc.stdout + tsc.stderr }).toEqual({ code: 0, output: '' });
      let worker!: Proc;
      const { done } = await demoJob(2, () => worker);
      worker = startWorker(
        process.execPath,
        ['worker.mts'],
        { ARTISSIST_URL: server.url, ARTISSIST_TOKEN: await server.token('demo', [Role.WORKER]) },
        { cwd: folder },
      );
      const job = await done();
      expect(job.items.nodes.map((i: any) => [i.status, i.outputs.result])).toEqual(
        [1, 2].map((n) => ['COMPLETED', `tenants/demo/out/${n}.png`]),
      );
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toMatchObject({ code: 0 });
    }, 120_000);
  });
});

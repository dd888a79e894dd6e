/** @long Started first on a clean clone (test/support/sequencer.js): one of the slowest files. */
import { type Browser, type Page } from 'playwright-core';
import { startDemo, type Demo } from '../../src/demo/demo';
import { demoId } from '../../src/demo/demo.data';
import { dataOf, Role, startTestServer, type TestServer } from '../support/server';
import { eventually } from '../support/ws';
import { launchBrowser } from '../support/browser';
import { stoppedAfter, stopOnPurpose } from '../support/fixtures';

/*
 * The live job board (/jobs, development only) in Debian's Chromium, driven by playwright-core,
 * against a real server with the demo's simulator moving jobs. The board is fed only by public
 * subscriptions; after its socket is dropped mid-run it must resume each stream by position, so
 * that once the simulator stops, what it draws equals what the table holds, event for event.
 */

interface BoardUnit {
  key: string;
  label: string;
  attempt: number;
  status: string;
  progress: number;
}
interface BoardJob {
  job: { jobId: string; kind: string; status: string; progress: number; seq: number };
  seq: number;
  live: boolean;
  units: BoardUnit[];
}

const IDLE = { graphql_ws_connections: 0, graphql_ws_subscriptions: 0, graphql_sse_streams: 0, event_bus_listeners: 0 };

// (Scripts as text: this file is compiled without the DOM's types.)
const boardJobs = (page: Page): Promise<BoardJob[]> => page.evaluate('window.jobBoard.jobs()');

/**
 * How often a wait reads the page: each read is a round trip to Chromium that serializes the
 * board, and the states waited for last a simulator tick (300 ms) or more. At eventually's 10 ms
 * the waits of this file kept the browser and the test process busy reading the page.
 */
const PAGE_POLL_MS = 100;
/** eventually, reading the page every PAGE_POLL_MS. */
const onPage = <T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs: number) =>
  eventually(read, accept, timeoutMs, PAGE_POLL_MS);

/** A fan-out stage's own row as drawn: its job, stage, status, bar width and state text. */
interface StageRow {
  jobId: string;
  stage: string;
  status: string;
  width: string;
  state: string;
}
/** Every step row of a fan-out stage on the page (the stages of the demo's music videos and batches). */
const STAGE_ROWS = `Array.from(document.querySelectorAll('section.job .unit')).filter(function (row) {
  return row.dataset.unit === 'step:render-scenes' || row.dataset.unit === 'step:process';
}).map(function (row) {
  return { jobId: row.closest('section.job').dataset.job, stage: row.dataset.unit.slice(5), status: row.dataset.status,
    width: row.querySelector('.bar > div').style.width, state: row.querySelector('.state').textContent };
})`;

interface Box {
  left: number;
  right: number;
}
interface HeaderLayout {
  id: string;
  phase: string;
  idBox: Box;
  cardBox: Box;
  idScrollWidth: number;
  idClientWidth: number;
  overlapsPhase: boolean;
}
/** Where a job card's id and phase are drawn, or null while the card is not there. */
const headerLayout = (jobId: string) => `(function () {
  var card = document.querySelector('section.job[data-job="${jobId}"]');
  if (!card) return null;
  var code = card.querySelector('header code');
  var phase = card.querySelector('header .phase');
  var c = card.getBoundingClientRect(), k = code.getBoundingClientRect(), p = phase.getBoundingClientRect();
  return { id: code.textContent, phase: phase.textContent, idBox: { left: k.left, right: k.right }, cardBox: { left: c.left, right: c.right },
    idScrollWidth: code.scrollWidth, idClientWidth: code.clientWidth,
    overlapsPhase: !(k.left >= p.right || k.right <= p.left || k.top >= p.bottom || k.bottom <= p.top) };
})()`;

/** Each job card as drawn: its id, status, label, project line and the colours of its label and its bar. */
interface CardLook {
  jobId: string;
  status: string;
  label: string;
  project: string | null;
  labelColour: string;
  barColour: string;
}
const CARDS = `Array.from(document.querySelectorAll('section.job')).map(function (card) {
  var label = card.querySelector('header .phase');
  var project = card.querySelector('.project');
  return { jobId: card.dataset.job, status: card.dataset.status, label: label.textContent, project: project && project.textContent,
    labelColour: getComputedStyle(label).color, barColour: getComputedStyle(card.querySelector(':scope > .bar > div')).backgroundColor };
})`;
const cards = (page: Page): Promise<CardLook[]> => page.evaluate(CARDS) as Promise<CardLook[]>;

// One Chromium for the file: each block opens pages of its own in it.
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 120_000);

describe('the live job board in Chromium', () => {
  let server: TestServer;
  let demo: Demo;

  beforeAll(async () => {
    // A short lease, so the scene of the demo's crashing render worker comes back within seconds.
    server = await startTestServer({ env: { JOB_LEASE_SECONDS: '3' } });
    demo = stoppedAfter('demo', await startDemo(server.app, server.config, { tickMs: 300 }));
  }, 120_000);

  it("draws jobs moving live (a music video's scenes in parallel, a crashed scene coming back), resumes every stream by position after a dropped socket, and lets go of everything on close", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(`${new URL(server.url).origin}/jobs`, { waitUntil: 'load' });

    // A running job with its steps drawn, followed live, and moving.
    const running = await onPage(
      () => boardJobs(page),
      (jobs) => jobs.some((j) => j.job.status === 'RUNNING' && j.live && j.units.length > 0),
      30_000,
    );
    const watched = running.find((j) => j.job.status === 'RUNNING' && j.live)!.job.jobId;
    const seqOf = async (jobId: string) => (await boardJobs(page)).find((j) => j.job.jobId === jobId)?.seq ?? 0;
    const before = await seqOf(watched);
    await onPage(
      () => seqOf(watched),
      (seq) => seq > before,
      30_000,
    );
    expect(await page.locator(`section.job[data-job="${watched}"] .unit`).count()).toBeGreaterThan(0);

    // A music video's scenes render on several workers at once: the board shows more than one
    // RUNNING at the same moment, and the scene whose worker crashed comes back as attempt 2 and
    // completes (after its lease, on another claim).
    const scenes = (jobs: BoardJob[]) =>
      jobs.filter((j) => j.job.kind === 'MUSIC_VIDEO').flatMap((j) => j.units.filter((u) => u.key.startsWith('item:')));
    await onPage(
      () => boardJobs(page),
      (jobs) => scenes(jobs).filter((u) => u.status === 'RUNNING').length >= 2,
      60_000,
    );
    await onPage(
      () => boardJobs(page),
      (jobs) => scenes(jobs).some((u) => u.attempt >= 2 && u.status === 'COMPLETED'),
      90_000,
    );
    expect(await page.locator('section.job .unit[data-attempt="2"]').count()).toBeGreaterThan(0);

    // The render stage's own row is drawn from its scenes: while it runs, its bar shows the share
    // of scenes completed (its step reports no progress of its own), and says how many.
    const stageRows = await onPage(
      () => page.evaluate(STAGE_ROWS) as Promise<StageRow[]>,
      (rows) => rows.some((r) => r.status === 'RUNNING' && r.width !== '0%' && r.width !== '100%'),
      90_000,
    );
    const midway = stageRows.find((r) => r.status === 'RUNNING' && r.width !== '0%')!;
    const [done, total] = /(\d+)\/(\d+)/.exec(midway.state)!.slice(1).map(Number);
    expect(midway.width).toBe(`${Math.round((done / total) * 100)}%`);

    // The network drops the socket while jobs move; the board reconnects by itself.
    await page.evaluate('window.jobBoard.dropConnection()');
    await onPage(
      () => page.evaluate('window.jobBoard.connections()'),
      (n) => Number(n) >= 2,
      20_000,
    );
    await page.locator('#connection.up').waitFor({ timeout: 20_000 });

    // Stop the simulator: from here the table stands still, and the board must catch up to it.
    await stopOnPurpose(demo);
    const editor = await server.token('demo', [Role.EDITOR]);
    const JOB =
      'query($id: ID!) { job(jobId: $id) { jobId status progress seq stageItemCounts { stage total completed } steps { name attempt status progress } items(first: 100) { nodes { stage sequence attempt status progress } } } }';
    const followed = (await boardJobs(page)).filter((j) => j.live || j.job.status === 'RUNNING');
    expect(followed.length).toBeGreaterThan(0);
    for (const entry of followed) {
      const { job } = dataOf((await server.raw({ query: JOB, variables: { id: entry.job.jobId } }, editor)).body) as {
        job: {
          status: string;
          progress: number;
          seq: number;
          stageItemCounts: Array<{ stage: string; total: number; completed: number }>;
          steps: Array<{ name: string; attempt: number; status: string; progress: number }>;
          items: { nodes: Array<{ stage: string; sequence: number; attempt: number; status: string; progress: number }> };
        };
      };
      const shown = await onPage(
        async () => (await boardJobs(page)).find((j) => j.job.jobId === entry.job.jobId)!,
        (j) => j.seq === job.seq,
        20_000,
      );
      expect({ status: shown.job.status, progress: shown.job.progress }).toEqual({ status: job.status, progress: job.progress });
      // Each step as the board draws it (its latest attempt), and each work item, as stored.
      const latest = new Map<string, { attempt: number; status: string; progress: number }>();
      for (const step of job.steps) if ((latest.get(step.name)?.attempt ?? 0) <= step.attempt) latest.set(step.name, step);
      for (const item of job.items.nodes) latest.set(`${item.stage} ${item.sequence}`, item);
      const drawn = new Map(shown.units.map((u) => [u.label, { attempt: u.attempt, status: u.status, progress: u.progress }]));
      expect(drawn).toEqual(
        new Map([...latest].map(([name, s]) => [name, { attempt: s.attempt, status: s.status, progress: s.progress }])),
      );
      // Each fan-out stage's row shows its completed share of the stored counters (all of it once completed).
      for (const counts of job.stageItemCounts) {
        const stage = latest.get(counts.stage);
        const share = stage?.status === 'COMPLETED' ? 1 : counts.completed / counts.total;
        const width = `${Math.round(share * 100)}%`;
        await onPage(
          async () =>
            (await (page.evaluate(STAGE_ROWS) as Promise<StageRow[]>)).find((r) => r.jobId === entry.job.jobId && r.stage === counts.stage),
          (row) => row?.width === width,
          10_000,
        );
      }
    }

    // A long phase (a free-form step's name, up to 48 characters) never pushes the job's id out of
    // its card, over the phase, or cuts it.
    const longStep = 'render_the_final_composite_with_all_its_layers';
    const worker = await server.token('demo', [Role.WORKER], 'board-worker');
    const created = dataOf(
      (
        await server.raw(
          {
            query: 'mutation($in: CreateJobInput!) { createJob(input: $in) { jobId } }',
            variables: { in: { projectId: demoId('proj', 1), kind: 'LONG_PHASE', steps: [longStep] } },
          },
          editor,
        )
      ).body,
    ) as { createJob: { jobId: string } };
    const longJob = created.createJob.jobId;
    await server.raw(
      { query: 'mutation($j: ID!, $s: String!) { startStep(jobId: $j, stepName: $s) { seq } }', variables: { j: longJob, s: longStep } },
      worker,
    );
    const layout = await onPage(
      () => page.evaluate(headerLayout(longJob)) as Promise<HeaderLayout | null>,
      (l) => l?.phase === longStep,
      20_000,
    );
    expect(layout).toMatchObject({ id: longJob, overlapsPhase: false });
    expect(layout!.idBox.left).toBeGreaterThanOrEqual(layout!.cardBox.left);
    expect(layout!.idBox.right).toBeLessThanOrEqual(layout!.cardBox.right);
    expect(layout!.idScrollWidth).toBeLessThanOrEqual(layout!.idClientWidth);

    expect(errors).toEqual([]);
    // Everything came from this server: no CDN.
    expect(requested.filter((url) => new URL(url).hostname !== '127.0.0.1')).toEqual([]);

    // Closing the page lets go of every socket, subscription and bus listener it held.
    await page.close();
    await eventually(
      () => server.app.counts(),
      (c) => JSON.stringify(c) === JSON.stringify(IDLE),
      20_000,
    );
  }, 300_000);

  it("labels each job in the API's words, a paused job as paused for review in its bar's colour, and names each job's project", async () => {
    // The simulator stopped in the block above, so what the table holds stands still; the demo keeps a 3D job paused for review.
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${new URL(server.url).origin}/jobs`, { waitUntil: 'load' });
    const editor = await server.token('demo', [Role.EDITOR]);
    const drawn = await onPage(
      () => cards(page),
      (all) =>
        all.length > 0 && all.some((c) => c.status === 'PAUSED') && all.every((c) => c.project !== null && !c.project.startsWith('proj_')),
      30_000,
    );
    for (const card of drawn) {
      const { job } = dataOf(
        (
          await server.raw(
            { query: 'query($id: ID!) { job(jobId: $id) { status phase projectId } }', variables: { id: card.jobId } },
            editor,
          )
        ).body,
      ) as { job: { status: string; phase: string; projectId: string } };
      const { project } = dataOf(
        (await server.raw({ query: 'query($id: ID!) { project(projectId: $id) { title } }', variables: { id: job.projectId } }, editor))
          .body,
      ) as { project: { title: string } };
      // The status word is the API's (QUEUED is "queued", never "pending"); a running job shows its phase.
      const label =
        job.status === 'RUNNING' ? job.phase : job.status === 'PAUSED' ? `paused for review · ${job.phase}` : job.status.toLowerCase();
      expect({ jobId: card.jobId, label: card.label, project: card.project }).toEqual({ jobId: card.jobId, label, project: project.title });
      // The label is coloured as the job's bar is (amber for a pause, not the running blue).
      if (job.status === 'RUNNING' || job.status === 'PAUSED')
        expect({ status: job.status, colour: card.labelColour }).toEqual({ status: job.status, colour: card.barColour });
    }
    const paused = drawn.find((c) => c.status === 'PAUSED')!;
    expect(paused.label).toBe('paused for review · rigging');
    expect(paused.labelColour).not.toBe(drawn.find((c) => c.status === 'RUNNING')?.labelColour ?? 'rgb(63, 167, 214)');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});

describe("the job board's view of the server's own jobs", () => {
  let server: TestServer;

  beforeAll(async () => {
    // A quick look for system work, so the migrations start as soon as they are asked for.
    server = await startTestServer({ env: { SYSTEM_JOB_IDLE_MS: '200' } });
  }, 120_000);

  it('shows an operator the migrations as jobs with their segments, live to completion, and refuses the system view to anyone else', async () => {
    const admin = await server.operatorToken();
    const origin = new URL(server.url).origin;
    // Without an operator token (the page's development token is an editor's), the system view is refused on the page.
    const refusedPage = await browser.newPage();
    await refusedPage.goto(`${origin}/jobs?system=1`, { waitUntil: 'load' });
    await refusedPage.locator('#connection.refused').waitFor({ timeout: 20_000 });
    expect(await refusedPage.locator('#connection').textContent()).toContain('Only an operator');
    await refusedPage.close();

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${origin}/jobs?system=1#token=${admin}`, { waitUntil: 'load' });
    await page.locator('#connection.up').waitFor({ timeout: 20_000 });
    expect(await page.locator('#title').textContent()).toBe('System jobs');
    // Nothing has run yet: the board says so rather than stay blank under its header.
    await page.locator('p.empty', { hasText: 'No system jobs yet' }).waitFor({ timeout: 20_000 });

    // The board is live before the jobs exist: it sees them start through the system jobs' status stream.
    const started = dataOf((await server.raw({ query: 'mutation { runMigrations { id jobId } }' }, admin)).body) as {
      runMigrations: Array<{ id: string; jobId: string | null }>;
    };
    const migrations = dataOf((await server.raw({ query: '{ migrations { id jobId state } }' }, admin)).body) as {
      migrations: Array<{ id: string; jobId: string | null; state: string }>;
    };
    expect(started.runMigrations[0].jobId).toBeTruthy();
    const done = await onPage(
      () => boardJobs(page),
      (jobs) => jobs.filter((j) => j.job.kind === 'MIGRATION' && j.job.status === 'COMPLETED').length === migrations.migrations.length,
      60_000,
    );
    for (const entry of done) {
      // Each scan segment is a work item, drawn completed.
      const segments = entry.units.filter((u) => u.key.startsWith('item:'));
      expect(segments.length).toBeGreaterThan(0);
      expect(segments.every((u) => u.status === 'COMPLETED')).toBe(true);
    }
    expect(done.map((j) => j.job.jobId)).toContain(started.runMigrations[0].jobId);
    expect(errors).toEqual([]);

    // A tenant's own board never shows them.
    const tenantPage = await browser.newPage();
    await tenantPage.goto(`${origin}/jobs`, { waitUntil: 'load' });
    await tenantPage.locator('#connection.up').waitFor({ timeout: 20_000 });
    // A fresh database's tenant has no jobs: the board says what to do instead of showing nothing.
    await tenantPage.locator('p.empty', { hasText: 'No jobs yet' }).waitFor({ timeout: 20_000 });
    expect((await boardJobs(tenantPage)).filter((j) => j.job.kind === 'MIGRATION')).toEqual([]);
    // Its first job comes in live, labelled queued as the API says, under its project's title.
    const editor = await server.token('demo', [Role.EDITOR]);
    const { createProject } = dataOf(
      (await server.raw({ query: 'mutation { createProject(input: { title: "Board test" }) { projectId } }' }, editor)).body,
    ) as { createProject: { projectId: string } };
    const { createJob } = dataOf(
      (
        await server.raw(
          {
            query: 'mutation($in: CreateJobInput!) { createJob(input: $in) { jobId status } }',
            variables: { in: { projectId: createProject.projectId, kind: 'FIRST', steps: ['one'] } },
          },
          editor,
        )
      ).body,
    ) as { createJob: { jobId: string; status: string } };
    expect(createJob.status).toBe('QUEUED');
    const first = await onPage(
      () => cards(tenantPage),
      (all) => all.some((c) => c.jobId === createJob.jobId && c.project === 'Board test'),
      20_000,
    );
    expect(first.find((c) => c.jobId === createJob.jobId)).toMatchObject({ status: 'QUEUED', label: 'queued', project: 'Board test' });
    expect(await tenantPage.locator('p.empty').count()).toBe(0);

    await page.close();
    await tenantPage.close();
    await eventually(
      () => server.app.counts(),
      (c) => JSON.stringify(c) === JSON.stringify(IDLE),
      20_000,
    );
  }, 180_000);
});

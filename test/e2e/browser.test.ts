import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { startDemo, type Demo } from '../../src/demo/demo';
import { StepsAwaitingReviewDocument } from '../../src/client/gql/graphql';
import { dataOf, startTestServer, type TestServer } from '../support/server';
import { launchBrowser } from '../support/browser';
import { fixture, stoppedAfter } from '../support/fixtures';
import { waitFor } from '../support/wait';

/*
 * GraphiQL in a real browser: Debian's Chromium driven by playwright-core (never a downloaded
 * browser), against the running server with the demo loaded and the simulator driving jobs.
 */
const SCREENSHOTS = join(__dirname, '../../test-results');

/**
 * Opens tab `index`, puts the cursor in its operation `name` (GraphiQL can still hold the previous
 * tab's operation name right after the switch and would send it with this tab's document; a
 * person clicking in the operation makes GraphiQL select it, as here) and runs it.
 */
async function runTab(page: Page, index: number, name: string): Promise<void> {
  await page.locator('.graphiql-tab').nth(index).click();
  const operation = page.locator('.graphiql-query-editor').getByText(name).first();
  await operation.waitFor({ timeout: 10_000 });
  await operation.click();
  await page.locator('.graphiql-tab-active').getByText(name).waitFor({ timeout: 10_000 });
  await page.locator('.graphiql-execute-button').click();
}

/** The result pane's JSON once the tab's operation answered (data or errors), whitespace squeezed. */
async function answer(page: Page): Promise<string> {
  const result = page.locator('.result-window');
  await result
    .getByText(/"(data|errors)"/)
    .first()
    .waitFor({ timeout: 30_000 });
  return (await result.innerText()).replace(/\s+/g, ' ');
}

/**
 * Runs the WatchJob tab and returns the step events it showed, one per seq, within 60 s (until
 * `enough` of them): the job's status and the step's name and progress in each.
 */
async function watchJob(page: Page, enough = 3): Promise<Array<{ seq: number; text: string }>> {
  const result = page.locator('.result-window');
  await runTab(page, 1, 'WatchJob');
  const seen = new Map<number, string>();
  const deadline = Date.now() + 60_000;
  while (seen.size < enough && Date.now() < deadline) {
    const text = (await result.innerText().catch(() => '')).replace(/\s+/g, ' ');
    const match = /"seq": (\d+)/.exec(text);
    if (match && /STEP_|ITEM_/.test(text) && !seen.has(Number(match[1]))) seen.set(Number(match[1]), text);
    await page.waitForTimeout(100);
  }
  return [...seen].map(([seq, text]) => ({ seq, text }));
}

/**
 * Each line of the open tab's editors (the operation and its variables) whose end is drawn past
 * the editor's right edge, where a reader cannot see it without scrolling sideways. The headers'
 * token line is left out: the development token is one unbreakable word, and nobody reads it. (Script as
 * text: this file is compiled without the DOM's types. CodeMirror 5 keeps its instance on its
 * wrapper element; `charCoords` gives a line end's place on the page.)
 */
const CLIPPED_LINES = `Array.from(document.querySelectorAll('.graphiql-editors .CodeMirror')).flatMap(function (el) {
  var cm = el.CodeMirror;
  if (!cm || !el.offsetWidth) return [];
  var right = el.querySelector('.CodeMirror-scroll').getBoundingClientRect().right;
  var lines = [];
  for (var i = 0; i < cm.lineCount(); i++) {
    var text = cm.getLine(i);
    if (cm.charCoords({ line: i, ch: text.length }, 'window').right > right && !/"Bearer /.test(text)) lines.push(text);
  }
  return lines;
})`;

/** The lines cut at the editor's edge on every tab, each tab opened in turn (the variables pane open too). */
async function clippedLines(page: Page): Promise<Array<{ tab: number; line: string }>> {
  const clipped: Array<{ tab: number; line: string }> = [];
  const count = await page.locator('.graphiql-tab').count();
  for (let tab = 0; tab < count; tab++) {
    await page.locator('.graphiql-tab').nth(tab).click();
    await page.locator('.graphiql-tab').nth(tab).and(page.locator('.graphiql-tab-active')).waitFor({ timeout: 10_000 });
    for (const line of (await page.evaluate(CLIPPED_LINES)) as string[]) clipped.push({ tab, line });
  }
  return clipped;
}

/**
 * One Chromium for the file (each test opens a context of its own, with its own storage): a second
 * launch cost Chromium's start-up again for nothing the tests look at.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 120_000);

describe('GraphiQL in Chromium, plain start (no demo data)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  }, 120_000);

  it("runs every tab without an error: first on an empty tenant, then on the tenant's own new data", async () => {
    const context = fixture('browser context', await browser.newContext({ viewport: { width: 1400, height: 900 } }), (c) => c.close());
    const page = await context.newPage();
    await page.goto(server.url, { waitUntil: 'load' });
    await page.locator('.graphiql-container').waitFor({ timeout: 30_000 });
    await expect(page.locator('.graphiql-tab').count()).resolves.toBe(5);
    // At 1,400 px every line of every tab is seen whole: none runs past the editor's edge.
    expect(await clippedLines(page)).toEqual([]);
    // An empty tenant: every tab says so and runs something that works; none holds a made-up id.
    const empty = ['CreateProject', 'JobKinds', 'MyJobs', 'AwaitingReview', 'PausedNow'];
    const firstRun: string[] = [];
    for (const [index, name] of empty.entries()) {
      await runTab(page, index, name);
      firstRun.push(await answer(page));
    }
    expect(firstRun.filter((text) => text.includes('"errors"'))).toEqual([]);
    expect(firstRun[0]).toContain('"projectId": "proj_');
    expect(await page.locator('.graphiql-query-editor').first().innerText()).not.toContain('proj_…');

    // Reloaded, the tabs name the project just made: GetProjectLogs and CreateJob run on it.
    await page.reload({ waitUntil: 'load' });
    await page.locator('.graphiql-container').waitFor({ timeout: 30_000 });
    await runTab(page, 0, 'GetProjectLogs');
    expect(await answer(page)).toContain('"logs": []');
    await runTab(page, 2, 'CreateJob');
    const created = await answer(page);
    expect(created).toContain('"status": "QUEUED"');
    // And once more: WatchJob follows that job (acknowledged, nothing failing).
    await page.reload({ waitUntil: 'load' });
    await page.locator('.graphiql-container').waitFor({ timeout: 30_000 });
    await runTab(page, 1, 'WatchJob');
    const watched = await answer(page);
    expect(watched).toContain('"jobProgress"');
    expect(watched).not.toContain('"errors"');
    // The tabs on the tenant's own ids are seen whole too.
    expect(await clippedLines(page)).toEqual([]);
  }, 180_000);
});

describe('GraphiQL in Chromium, demo', () => {
  let server: TestServer;
  let demo: Demo;

  beforeAll(async () => {
    server = await startTestServer();
    demo = stoppedAfter('demo', await startDemo(server.app, server.config, { tickMs: 300 }));
  }, 120_000);

  it('on the first load: serves GraphiQL offline, runs GetProjectLogs, shows a running job advancing, and approves the paused job as prefilled', async () => {
    // startDemo returned, so the banner would be out: from now on the page names a paused job.
    const review = demo.simulator.reviewJob();
    expect(review).toBeDefined();
    const page = fixture('browser page', await browser.newPage({ viewport: { width: 1400, height: 900 } }), (p) => p.close());
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(server.url, { waitUntil: 'load' });
    await page.locator('.graphiql-container').waitFor({ timeout: 60_000 });
    // The demo's tabs (a paused job to approve among them) are seen whole at 1,400 px.
    expect(await clippedLines(page)).toEqual([]);
    await page.locator('.graphiql-tab').first().click();

    // Tab 1: the seed query on the demo project.
    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.result-window');
    await result.getByText('timeSpentMinutes').first().waitFor({ timeout: 30_000 });
    const logs = await result.innerText();
    expect(logs).toContain('log_01J0DEM0');
    expect(logs).toContain('ultramarine');

    // Tab 2: the job progress subscription, over graphql-ws, on a job that is running: its steps
    // move (new seqs, rising progress) and it has not finished.
    const events = await watchJob(page);
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events.every((e) => !/"status": "(COMPLETED|FAILED|CANCELLED)"/.test(/"job": \{[^}]*\}/.exec(e.text)?.[0] ?? ''))).toBe(true);
    expect(events.at(-1)!.seq).toBeGreaterThan(events[0].seq);

    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, 'graphiql-job-progress.png') });

    // Tabs 3 and 4 run as they are.
    await runTab(page, 2, 'CreateJob');
    expect(await answer(page)).not.toContain('"errors"');
    await runTab(page, 3, 'AwaitingReview');
    expect(await answer(page)).not.toContain('"errors"');

    // Tab 5: Approve, with the variables as prefilled on this first load.
    await runTab(page, 4, 'Approve');
    const approved = await answer(page);
    expect(approved).toContain('"approveStep"');
    expect(approved).toContain(review!.jobId);
    expect(approved).not.toContain('"errors"');

    // Nothing was fetched from anywhere but this server.
    const foreign = requested.filter((url) => !/^(data|blob):/.test(url) && new URL(url).hostname !== '127.0.0.1');
    expect(foreign).toEqual([]);
    expect(requested.some((url) => url.endsWith('/graphiql/assets/graphiql.min.js'))).toBe(true);
  }, 180_000);

  it('replaces stale stored tabs after a restart, and approves the job that is paused for review as prefilled', async () => {
    // A browser that used GraphiQL against an earlier run: its stored tabs name ids that no longer exist.
    const stale = JSON.stringify({
      tabs: [
        {
          id: 'old',
          hash: null,
          title: 'WatchJob',
          query: 'subscription WatchJob { jobProgress(jobId: "job_01OLD") { seq } }',
          variables: '{}',
          headers: null,
          operationName: 'WatchJob',
          response: null,
        },
      ],
      activeTabIndex: 0,
    });
    // The approval above made the simulator drive a new 3D job to its review pause at its next round.
    const paused = async () =>
      dataOf(await server.request(StepsAwaitingReviewDocument, {}, server.app.devToken)).stepsAwaitingReview.nodes[0];
    const review = await waitFor(paused, 'a step of the new 3D job paused for review', { ms: 60_000 });

    const context = fixture('browser context', await browser.newContext({ viewport: { width: 1400, height: 900 } }), (c) => c.close());
    const page = await context.newPage();
    const origin = new URL(server.url).origin;
    await page.goto(`${origin}/healthz`);
    // (Scripts as text: this file is compiled without the DOM's types.)
    await page.evaluate(
      `localStorage.setItem('graphiql:tabState', ${JSON.stringify(stale)});` +
        `localStorage.setItem('graphiql:query', 'subscription WatchJob { jobProgress(jobId: "job_01OLD") { seq } }');` +
        `localStorage.setItem('artissist:examples', '["an earlier run"]');`,
    );
    const favicon = await page.request.get(`${origin}/favicon.ico`);
    expect([favicon.status(), favicon.headers()['content-type']]).toEqual([200, expect.stringMatching(/^image\/svg\+xml/)]);

    await page.goto(server.url, { waitUntil: 'load' });
    await page.locator('.graphiql-container').waitFor({ timeout: 60_000 });
    // The five example tabs are back, not the stale one.
    await expect(page.locator('.graphiql-tab').count()).resolves.toBe(5);
    expect(await page.evaluate("localStorage.getItem('graphiql:tabState') || ''")).not.toContain('job_01OLD');
    // WatchJob follows a job that exists and moves.
    expect((await watchJob(page, 2)).length).toBeGreaterThanOrEqual(2);

    // The Approve tab: run it with the variables as prefilled.
    await runTab(page, 4, 'Approve');
    const text = await answer(page);
    expect(text).toContain(review!.jobId);
    expect(text).not.toContain('"errors"');
  }, 180_000);
});

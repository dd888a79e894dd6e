import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startDemo, type Demo } from '../../src/demo/demo';
import { startTestServer, type TestServer } from '../support/server';

/*
 * GraphiQL in a real browser: Debian's Chromium driven by playwright-core (never a downloaded
 * browser), against the running server with the demo loaded and the simulator driving jobs.
 */
const SCREENSHOTS = join(__dirname, '../../test-results');

/** Runs the WatchJob tab and returns how many different event seqs it showed within 20 s. */
async function watchJobSeqs(page: Page): Promise<number> {
  const result = page.locator('.result-window');
  await page.locator('.graphiql-tab').nth(1).click();
  // GraphiQL can still hold the previous tab's operation name (GetProjectLogs) right after the
  // switch and would send it with this tab's document; putting the cursor in the WatchJob
  // operation makes GraphiQL select that operation, as a person clicking there would.
  const operation = page.locator('.graphiql-query-editor').getByText('WatchJob').first();
  await operation.waitFor({ timeout: 10_000 });
  await operation.click();
  await page.locator('.graphiql-tab-active').getByText('WatchJob').waitFor({ timeout: 10_000 });
  await page.locator('.graphiql-execute-button').click();
  const seqs = new Set<number>();
  const deadline = Date.now() + 20_000;
  while (seqs.size < 2 && Date.now() < deadline) {
    const text = (await result.innerText().catch(() => '')).replace(/\s+/g, ' ');
    const match = /"seq": (\d+)/.exec(text);
    if (match && /STEP_/.test(text)) seqs.add(Number(match[1]));
    await page.waitForTimeout(100);
  }
  return seqs.size;
}

describe('GraphiQL in Chromium', () => {
  let server: TestServer;
  let demo: Demo;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer();
    demo = await startDemo(server.app, server.config, { tickMs: 300 });
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      // Chromium's own background traffic would try to leave this machine; switch it off.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-dev-shm-usage',
      ],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    await server?.stop();
  });

  it('serves GraphiQL offline, runs GetProjectLogs on demo data and shows a job advancing live', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const started = Date.now();
    await page.goto(server.url, { waitUntil: 'load' });
    await page.locator('.graphiql-container').waitFor({ timeout: 30_000 });
    const pageReadyMs = Date.now() - started;

    // Tab 1: the seed query on the demo project.
    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.result-window');
    await result.getByText('timeSpentMinutes').first().waitFor({ timeout: 20_000 });
    const logs = await result.innerText();
    expect(logs).toContain('log_01J0DEM0');
    expect(logs).toContain('ultramarine');

    // Tab 2: the job progress subscription, over graphql-ws.
    expect(await watchJobSeqs(page)).toBeGreaterThanOrEqual(2);

    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, 'graphiql-job-progress.png') });

    // Nothing was fetched from anywhere but this server.
    const foreign = requested.filter((url) => !/^(data|blob):/.test(url) && new URL(url).hostname !== '127.0.0.1');
    expect(foreign).toEqual([]);
    expect(requested.some((url) => url.endsWith('/graphiql/assets/graphiql.min.js'))).toBe(true);
    expect(pageReadyMs).toBeLessThan(30_000);
    await page.close();
  });

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
    // Wait until the simulator has a 3D job paused at its review step.
    const deadline = Date.now() + 30_000;
    while (!demo.simulator.reviewJob() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const review = demo.simulator.reviewJob();
    expect(review).toBeDefined();

    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
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
    await page.locator('.graphiql-container').waitFor({ timeout: 30_000 });
    // The five example tabs are back, not the stale one.
    await expect(page.locator('.graphiql-tab').count()).resolves.toBe(5);
    expect(await page.evaluate("localStorage.getItem('graphiql:tabState') || ''")).not.toContain('job_01OLD');
    // WatchJob follows a job that exists and moves.
    expect(await watchJobSeqs(page)).toBeGreaterThanOrEqual(2);

    // The Approve tab: run it with the variables as prefilled.
    await page.locator('.graphiql-tab').nth(4).click();
    // As for WatchJob, the cursor in the operation makes GraphiQL send its name, not the last tab's.
    const approve = page.locator('.graphiql-query-editor').getByText('Approve').first();
    await approve.waitFor({ timeout: 10_000 });
    await approve.click();
    await page.locator('.graphiql-tab-active').getByText('Approve').waitFor({ timeout: 10_000 });
    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.result-window');
    await result.getByText('approveStep').first().waitFor({ timeout: 20_000 });
    const text = await result.innerText();
    expect(text).toContain(review!.jobId);
    expect(text).not.toContain('INVALID_TRANSITION');
    await context.close();
  }, 90_000);
});

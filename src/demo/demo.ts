import type { App } from '../app';
import { DEV_TENANT } from '../app';
import { signDevToken } from '../auth/jwt';
import { Role } from '../auth/principal';
import type { Config } from '../config';
import { exampleIdsFromApi } from '../http/graphiql';
import { loadDemo, type DemoIds } from './demo.loader';
import { startSimulator, type Simulator } from './simulator';

export interface Demo {
  ids: DemoIds;
  simulator: Simulator;
  stop(): Promise<void>;
}

/**
 * Demo mode: loads the demo tenant, starts the pipeline simulator against the server's own URL
 * and waits for its first round, then points GraphiQL's example tabs at the demo project, the job
 * being driven with the most time to go, and the job paused for review. Development
 * only: it needs the HS256 secret to mint the simulator's worker token.
 */
export async function startDemo(app: App, config: Config, options: { tickMs?: number } = {}): Promise<Demo> {
  const secret = config.auth.secret;
  if (!secret || !app.devToken) throw new Error('Demo mode needs the development auth setup (no AUTH_JWKS_URL, NODE_ENV not production).');
  const ids = await loadDemo(app, config);
  const workerToken = await signDevToken(secret, { sub: 'demo-worker', tenantId: DEV_TENANT, roles: [Role.WORKER] });
  // Four render workers, each with its own identity, so Step.worker and WorkItem.worker tell them apart.
  const sceneWorkerTokens = await Promise.all(
    [1, 2, 3, 4].map((n) => signDevToken(secret, { sub: `demo-render-${n}`, tenantId: DEV_TENANT, roles: [Role.WORKER] })),
  );
  const simulator = startSimulator({ url: app.url, workerToken, editorToken: app.devToken, sceneWorkerTokens, tickMs: options.tickMs });
  // The tabs name a running job and a paused one from the first page load on (see Simulator.ready).
  await simulator.ready;
  const devToken = app.devToken;
  app.setGraphiQLHints(async () => {
    // The paused step is asked of the table on each page load, not taken from the simulator's
    // last round: a person may have approved it a moment ago.
    const found = await exampleIdsFromApi(app.url, devToken);
    return {
      projectId: ids.projectId,
      jobId: simulator.featuredJobId() ?? found.jobId ?? ids.jobIds[1],
      reviewJobId: found.reviewJobId,
      reviewStepName: found.reviewStepName,
    };
  });
  return { ids, simulator, stop: () => simulator.stop() };
}

import type { App } from '../app';
import { DEV_TENANT } from '../app';
import { signDevToken } from '../auth/jwt';
import { Role } from '../auth/principal';
import type { Config } from '../config';
import { loadDemo, type DemoIds } from './demo.loader';
import { startSimulator, type Simulator } from './simulator';

export interface Demo {
  ids: DemoIds;
  simulator: Simulator;
  stop(): Promise<void>;
}

/**
 * Demo mode: loads the demo tenant, starts the pipeline simulator against the server's own URL,
 * and points GraphiQL's example tabs at the demo project and the job being driven. Development
 * only: it needs the HS256 secret to mint the simulator's worker token.
 */
export async function startDemo(app: App, config: Config, options: { tickMs?: number } = {}): Promise<Demo> {
  if (!config.auth.secret || !app.devToken)
    throw new Error('Demo mode needs the development auth setup (no AUTH_JWKS_URL, NODE_ENV not production).');
  const ids = await loadDemo(app, config);
  const workerToken = await signDevToken(config.auth.secret, { sub: 'demo-worker', tenantId: DEV_TENANT, roles: [Role.WORKER] });
  const simulator = startSimulator({ url: app.url, workerToken, editorToken: app.devToken, tickMs: options.tickMs });
  app.setGraphiQLHints(() => {
    const review = simulator.reviewJob();
    return {
      projectId: ids.projectId,
      jobId: simulator.featuredJobId() ?? ids.jobIds[1],
      reviewJobId: review?.jobId,
      reviewStepName: review?.stepName,
    };
  });
  return { ids, simulator, stop: () => simulator.stop() };
}

import { logger } from '../logger';
import { DEMO_JOBS, REVIEW_STEP } from './demo.data';

/** A GraphQL response as the simulator reads it: the fields its own queries asked for, or errors. */
interface ResponseBody {
  // biome-ignore lint/suspicious/noExplicitAny: the simulator reads whatever fields its own query asked for.
  data?: any;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

function isResponseBody(value: unknown): value is ResponseBody {
  return typeof value === 'object' && value !== null && ('data' in value || 'errors' in value);
}

export interface SimulatorOptions {
  /** The server's GraphQL URL: the simulator uses the public API only. */
  url: string;
  /** A `worker` token: starts, advances and completes steps. */
  workerToken: string;
  /** An `editor` token: starts a new job when none is running, so there is always progress to watch. */
  editorToken: string;
  tickMs?: number;
}

export interface Simulator {
  /** The job the simulator is driving right now that does not stop for review: good to watch. */
  featuredJobId(): string | undefined;
  /** The 3D_CHARACTER job paused for a person's review, and its step, when one is paused now. */
  reviewJob(): { jobId: string; stepName: string } | undefined;
  stop(): Promise<void>;
}

interface StepView {
  name: string;
  attempt: number;
  status: string;
  progress: number;
}

interface JobView {
  jobId: string;
  projectId: string;
  kind: string;
  status: string;
  currentStep: string | null;
  plan: Array<{ name: string; order: number }>;
  steps: StepView[];
}

const JOB_FIELDS = 'jobId projectId kind status currentStep plan { name order } steps { name attempt status progress }';

/** True for a step that comes before the review step in the job's plan. */
function beforeReview(job: JobView, stepName: string): boolean {
  const order = (name: string) => job.plan.find((p) => p.name === name)?.order ?? 0;
  return order(stepName) < order(REVIEW_STEP);
}

/**
 * A pipeline worker for the demo: every tick it moves each queued or running job of the token's
 * tenant one step on (start, progress in thirds, complete with an artifact), pausing a
 * 3D_CHARACTER job at `rig` until a person approves it in GraphiQL. When no job is moving, it
 * creates one, so a watcher always sees live progress; when no 3D job is waiting for review or on
 * its way there, it creates one, so a person can always approve one.
 */
export function startSimulator(options: SimulatorOptions): Simulator {
  const tickMs = options.tickMs ?? 1000;
  let featured: string | undefined;
  let review: { jobId: string; stepName: string } | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  let created = 0;

  const call = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
    const res = await fetch(options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = await res.json();
    if (!isResponseBody(body)) throw new Error(`The server answered ${res.status} with no GraphQL response.`);
    // A person's action can race the simulator's (approving, cancelling): that is no failure.
    if (body.errors?.some((e) => e.extensions?.code !== 'INVALID_TRANSITION'))
      throw new Error(body.errors.map((e) => e.message).join('; '));
    return body.data;
  };
  const worker = (query: string, variables: Record<string, unknown>) => call(options.workerToken, query, variables);

  const firstProject = async (): Promise<string | undefined> =>
    (await call(options.editorToken, '{ projects(first: 1) { nodes { projectId } } }')).projects.nodes[0]?.projectId;

  async function advance(job: JobView): Promise<void> {
    const attempts = job.steps.filter((s) => s.name === job.currentStep);
    const step = attempts[attempts.length - 1];
    if (!step) return;
    const ref = { jobId: job.jobId, stepName: step.name };
    if (step.status === 'PENDING') {
      await worker('mutation($jobId: ID!, $stepName: String!) { startStep(jobId: $jobId, stepName: $stepName) { seq } }', ref);
    } else if (step.status === 'RUNNING' && job.kind === '3D_CHARACTER' && beforeReview(job, step.name)) {
      // The steps before the review go quickly, so a new 3D job is waiting for review soon.
      await worker(
        'mutation($jobId: ID!, $stepName: String!, $a: [String!]) { completeStep(jobId: $jobId, stepName: $stepName, artifacts: $a) { seq } }',
        { ...ref, a: [`tenants/demo/jobs/${job.jobId}/${step.name}-v${step.attempt}.bin`] },
      );
    } else if (step.status === 'RUNNING' && step.progress < 0.99) {
      const progress = Math.min(1, Math.round((step.progress + 0.34) * 100) / 100);
      await worker(
        'mutation($jobId: ID!, $stepName: String!, $p: Float!, $m: JSONObject) { reportStepProgress(jobId: $jobId, stepName: $stepName, progress: $p, metrics: $m) { seq } }',
        {
          ...ref,
          p: progress,
          m: { gpuSeconds: Math.round(progress * 40) },
        },
      );
    } else if (step.status === 'RUNNING' && job.kind === '3D_CHARACTER' && step.name === REVIEW_STEP) {
      await worker('mutation($jobId: ID!, $stepName: String!) { pauseStepForReview(jobId: $jobId, stepName: $stepName) { seq } }', ref);
    } else if (step.status === 'RUNNING') {
      const artifact = `tenants/demo/jobs/${job.jobId}/${step.name}-v${step.attempt}.bin`;
      await worker(
        'mutation($jobId: ID!, $stepName: String!, $a: [String!]) { completeStep(jobId: $jobId, stepName: $stepName, artifacts: $a) { seq } }',
        { ...ref, a: [artifact] },
      );
    }
  }

  async function tick(): Promise<void> {
    const [queued, active, paused] = await Promise.all(
      ['QUEUED', 'RUNNING', 'PAUSED'].map((status) =>
        worker(`query($s: JobStatus!) { jobsByStatus(status: $s, first: 10) { nodes { ${JOB_FIELDS} } } }`, { s: status }),
      ),
    );
    const jobs: JobView[] = [...active.jobsByStatus.nodes, ...queued.jobsByStatus.nodes];
    // The job GraphiQL's AwaitingReview tab names: one paused at its review step.
    const pausedJobs: JobView[] = paused.jobsByStatus.nodes;
    const waiting = pausedJobs.find((j) => j.kind === '3D_CHARACTER');
    review = waiting ? { jobId: waiting.jobId, stepName: waiting.currentStep ?? REVIEW_STEP } : undefined;
    if (!waiting && !jobs.some((j) => j.kind === '3D_CHARACTER')) {
      // Someone approved (or rejected) the last one: start another, so one always waits for review.
      const project = (jobs[0] ?? paused.jobsByStatus.nodes[0])?.projectId ?? (await firstProject());
      if (project) {
        const template = DEMO_JOBS[0];
        await call(options.editorToken, 'mutation($in: CreateJobInput!) { createJob(input: $in) { jobId } }', {
          in: { projectId: project, kind: template.kind, steps: template.steps, inputs: { ...template.inputs, run: Date.now() } },
        });
      }
    }
    // Feature the job with the most work left, so a watcher who subscribes a moment later still
    // sees it move; keep the current one while it has at least two steps to go.
    const remaining = (job: JobView) =>
      new Set(job.steps.filter((s) => s.status !== 'COMPLETED' && s.status !== 'SKIPPED').map((s) => s.name)).size;
    const watchable = jobs.filter((j) => j.kind !== '3D_CHARACTER').sort((a, b) => remaining(b) - remaining(a));
    const current = watchable.find((j) => j.jobId === featured);
    featured = current && remaining(current) >= 2 ? current.jobId : watchable[0]?.jobId;
    if (watchable.length === 0 && jobs.length < 3) {
      // Keep something moving: a new music video or photo edit.
      const template = DEMO_JOBS[1 + (created++ % 2)];
      const project = jobs[0]?.projectId ?? (await firstProject());
      if (project) {
        const made = await call(options.editorToken, 'mutation($in: CreateJobInput!) { createJob(input: $in) { jobId } }', {
          in: { projectId: project, kind: template.kind, steps: template.steps, inputs: { ...template.inputs, run: Date.now() } },
        });
        featured = made.createJob.jobId;
      }
    }
    await Promise.all(jobs.map((job) => advance(job)));
  }

  const timer = setInterval(() => {
    if (running || stopped) return;
    running = tick()
      .catch((err) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'demo simulator tick failed'))
      .finally(() => (running = undefined));
  }, tickMs);

  return {
    featuredJobId: () => featured,
    reviewJob: () => review,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

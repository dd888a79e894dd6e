import { SIMULATOR_REQUEST_ID_PREFIX } from '../graphql/record';
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
  /**
   * Settles once the first round is done: a 3D_CHARACTER job is paused for review (unless the
   * server refused), and a job is running that has a minute or more to go. It never rejects.
   */
  ready: Promise<void>;
  /** The running job that does not stop for review and has the most time to go: good to watch. */
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

/**
 * Progress reports per step: a job someone may be watching reports every tick for about 20 s a
 * step, so WatchJob shows it move for a minute or more; the 3D job moves quicker.
 */
const REPORTS_PER_STEP: Record<string, number> = { '3D_CHARACTER': 3 };
const WATCHED_REPORTS_PER_STEP = 20;
const reportsPerStep = (kind: string) => REPORTS_PER_STEP[kind] ?? WATCHED_REPORTS_PER_STEP;
/** How many ticks the featured job must have left, at least: 60 ticks are a minute at the default tick. */
const WATCH_TICKS = 60;

/** About how many ticks a job has left: each step takes a start, its reports and a completion. */
function ticksLeft(job: JobView): number {
  const reports = reportsPerStep(job.kind);
  const open = new Set(job.steps.filter((s) => s.status !== 'COMPLETED' && s.status !== 'SKIPPED').map((s) => s.name));
  const current = job.steps.filter((s) => s.name === job.currentStep).at(-1);
  const done = current && current.status !== 'PENDING' ? 1 + Math.round(current.progress * reports) : 0;
  return open.size * (reports + 2) - done;
}

/** True for a step that comes before the review step in the job's plan. */
function beforeReview(job: JobView, stepName: string): boolean {
  const order = (name: string) => job.plan.find((p) => p.name === name)?.order ?? 0;
  return order(stepName) < order(REVIEW_STEP);
}

/**
 * A pipeline worker for the demo: every tick it moves each queued or running job of the token's
 * tenant one step on (start, a progress report, complete with an artifact), pausing a
 * 3D_CHARACTER job at `rig` until a person approves it in GraphiQL. When no 3D job is paused for
 * review, it drives one there at once (making one if there is none), so a person can nearly
 * always approve one; when no running job has a minute or more to go, it starts a MUSIC_VIDEO job,
 * so a watcher always has one that moves. The first round runs at once (see `ready`).
 */
export function startSimulator(options: SimulatorOptions): Simulator {
  const tickMs = options.tickMs ?? 1000;
  let featured: string | undefined;
  let review: { jobId: string; stepName: string } | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  let requests = 0;
  const call = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
    const res = await fetch(options.url, {
      method: 'POST',
      // The prefix makes a development server log these requests at debug, so they do not bury its banner.
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        'x-request-id': `${SIMULATOR_REQUEST_ID_PREFIX}${++requests}`,
      },
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
    } else if (step.status === 'RUNNING' && step.progress < 0.999) {
      const progress = Math.min(1, Math.round((step.progress + 1 / reportsPerStep(job.kind)) * 1000) / 1000);
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

  const createJob = async (projectId: string, kind: string): Promise<string> => {
    const template = DEMO_JOBS.find((j) => j.kind === kind) ?? DEMO_JOBS[0];
    const made = await call(options.editorToken, 'mutation($in: CreateJobInput!) { createJob(input: $in) { jobId } }', {
      in: { projectId, kind: template.kind, steps: template.steps, inputs: { ...template.inputs, run: Date.now() } },
    });
    return made.createJob.jobId;
  };
  const readJob = async (jobId: string): Promise<JobView | undefined> =>
    (await worker(`query($j: ID!) { job(jobId: $j) { ${JOB_FIELDS} } }`, { j: jobId })).job ?? undefined;

  /** Moves a 3D job on without waiting for ticks until it pauses for review; undefined if it does not get there. */
  async function driveToReview(jobId: string): Promise<JobView | undefined> {
    for (let round = 0; round < 40 && !stopped; round++) {
      const job = await readJob(jobId);
      if (!job || job.status === 'PAUSED') return job;
      if (job.status !== 'QUEUED' && job.status !== 'RUNNING') return undefined;
      await advance(job);
    }
    return undefined;
  }

  async function tick(): Promise<void> {
    const [queued, active, paused] = await Promise.all(
      ['QUEUED', 'RUNNING', 'PAUSED'].map((status) =>
        worker(`query($s: JobStatus!) { jobsByStatus(status: $s, first: 10) { nodes { ${JOB_FIELDS} } } }`, { s: status }),
      ),
    );
    let jobs: JobView[] = [...active.jobsByStatus.nodes, ...queued.jobsByStatus.nodes];
    const pausedJobs: JobView[] = paused.jobsByStatus.nodes;
    const project = async () => (jobs[0] ?? pausedJobs[0])?.projectId ?? (await firstProject());
    // The job GraphiQL's Approve tab names: one paused at its review step. When there is none
    // (someone approved or rejected the last one), one is driven there now, made first if needed.
    let waiting = pausedJobs.find((j) => j.kind === '3D_CHARACTER');
    if (!waiting) {
      const onItsWay = jobs.find((j) => j.kind === '3D_CHARACTER');
      const projectId = onItsWay ? undefined : await project();
      const robot = onItsWay?.jobId ?? (projectId ? await createJob(projectId, '3D_CHARACTER') : undefined);
      if (robot) {
        waiting = await driveToReview(robot);
        jobs = jobs.filter((j) => j.jobId !== robot);
      }
    }
    review = waiting?.status === 'PAUSED' ? { jobId: waiting.jobId, stepName: waiting.currentStep ?? REVIEW_STEP } : undefined;
    // Feature the job with the most time to go; when none has a minute left, start one that has,
    // so a watcher who opens GraphiQL now sees it move for a minute or more.
    const watchable = jobs.filter((j) => j.kind !== '3D_CHARACTER').sort((a, b) => ticksLeft(b) - ticksLeft(a));
    featured = watchable[0]?.jobId;
    if ((!watchable[0] || ticksLeft(watchable[0]) < WATCH_TICKS) && jobs.length < 5) {
      const projectId = await project();
      if (projectId) featured = await createJob(projectId, 'MUSIC_VIDEO');
    }
    await Promise.all(jobs.map((job) => advance(job)));
  }

  const round = () => {
    running = tick()
      .catch((err) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'demo simulator tick failed'))
      .finally(() => (running = undefined));
    return running;
  };
  // The first round runs now, so a page loaded as soon as the server says it is up finds a job to
  // watch and one to approve.
  const ready = round().then(() => {});
  const timer = setInterval(() => {
    if (running || stopped) return;
    void round();
  }, tickMs);

  return {
    ready,
    featuredJobId: () => featured,
    reviewJob: () => review,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

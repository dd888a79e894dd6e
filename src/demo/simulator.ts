import { SIMULATOR_REQUEST_ID_PREFIX } from '../graphql/record';
import { logger } from '../logger';
import { DEMO_JOBS, REVIEW_STEP, SCENE_PROMPTS } from './demo.data';

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
  /**
   * One `worker` token per simulated render worker: they claim a music video's scenes
   * (`claimWork`) and render them in parallel. Without it, two workers share `workerToken`.
   */
  sceneWorkerTokens?: string[];
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
  itemCounts: { total: number; completed: number };
}

const JOB_FIELDS =
  'jobId projectId kind status currentStep plan { name order } steps { name attempt status progress } itemCounts { total completed }';

/** The declared music-video pipeline's stages (seed 001): scenes are made, rendered in parallel, then composed. */
const GENERATE = 'generate-scenes';
const RENDER = 'render-scenes';
/** The 3D character's last stage (seed 000), which must give its model file (job.kinds.ts). */
const EXPORT = 'export';
/** Progress reports a render worker makes per scene (one a tick), and a guess of the stage's length in ticks. */
const SCENE_REPORTS = 4;
const RENDER_TICKS = 30;

/** A simulated render worker: the scene it holds, if any, and whether it is down after a crash. */
interface SceneWorker {
  token: string;
  held?: { jobId: string; sequence: number; attempt: number; progress: number; lipSync: boolean };
  /** Ticks left before a crashed worker is back. */
  down: number;
}

/**
 * Progress reports per step: a job someone may be watching reports every tick for about 20 s a
 * step, so WatchJob shows it move for a minute or more; the 3D job moves quicker.
 */
const REPORTS_PER_STEP: Record<string, number> = { '3D_CHARACTER': 3 };
const WATCHED_REPORTS_PER_STEP = 20;
const reportsPerStep = (kind: string) => REPORTS_PER_STEP[kind] ?? WATCHED_REPORTS_PER_STEP;
/** How many ticks the featured job must have left, at least: 60 ticks are a minute at the default tick. */
const WATCH_TICKS = 60;

/** True for a job of the declared music-video pipeline (its plan has the fan-out stage of scenes). */
const isMusicVideo = (job: JobView) => job.plan.some((p) => p.name === RENDER);

/** About how many ticks a job has left: each step takes a start, its reports and a completion; the scenes about RENDER_TICKS. */
function ticksLeft(job: JobView): number {
  const reports = reportsPerStep(job.kind);
  const open = new Set(job.steps.filter((s) => s.status !== 'COMPLETED' && s.status !== 'SKIPPED').map((s) => s.name));
  const cost = (name: string) => (name === RENDER ? RENDER_TICKS : reports + 2);
  const current = job.steps.filter((s) => s.name === job.currentStep).at(-1);
  const scenesDone = job.itemCounts.total ? job.itemCounts.completed / job.itemCounts.total : 0;
  const done =
    !current || current.status === 'PENDING'
      ? 0
      : current.name === RENDER
        ? Math.round(scenesDone * RENDER_TICKS)
        : 1 + Math.round(current.progress * reports);
  return [...open].reduce((sum, name) => sum + cost(name), 0) - done;
}

/** True for a step that comes before the review step in the job's plan. */
function beforeReview(job: JobView, stepName: string): boolean {
  const order = (name: string) => job.plan.find((p) => p.name === name)?.order ?? 0;
  return order(stepName) < order(REVIEW_STEP);
}

/**
 * A pipeline worker for the demo: every tick it moves each queued or running job of the token's
 * tenant one step on (start, a progress report, complete with an artifact). A 3D_CHARACTER job
 * runs its declared pipeline, so completing its review stage (REVIEW_STEP, as job.kinds.ts
 * declares) pauses it until a person approves it in GraphiQL. When no 3D job is paused for
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
  let created = 0;

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
    // A music video's scenes are the render workers' (see renderScenes); the stage's step is the server's.
    if (step.name === RENDER) return;
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
    } else if (step.status === 'RUNNING' && job.kind === '3D_CHARACTER' && step.name === EXPORT) {
      // The declared export stage gives the model file, which becomes a model asset of the project.
      await worker(
        'mutation($jobId: ID!, $stepName: String!, $o: JSONObject, $n: Int) { completeStep(jobId: $jobId, stepName: $stepName, outputs: $o, attempt: $n) { seq } }',
        { ...ref, o: { model: `tenants/demo/jobs/${job.jobId}/character.glb`, format: 'glb' }, n: step.attempt },
      );
    } else if (step.status === 'RUNNING' && isMusicVideo(job) && step.name === GENERATE) {
      // Seed 001: the scene generator decides on 6 to 12 scenes and hands each to the render
      // stage as a work item, then completes with their count.
      const count = 6 + Math.floor(Math.random() * 7);
      const base = `tenants/demo/music/${job.jobId}`;
      const items = SCENE_PROMPTS.slice(0, count).map((prompt, i) => ({
        prompt,
        durationSeconds: 4 + (i % 3) * 2,
        audioClip: `${base}/audio/scene-${i + 1}.mp3`,
        needsLipSync: i % 3 === 2,
      }));
      await worker(
        'mutation($jobId: ID!, $stage: String!, $items: [JSONObject!]!) { addWorkItems(jobId: $jobId, stage: $stage, items: $items) { seq } }',
        {
          jobId: job.jobId,
          stage: RENDER,
          items,
        },
      );
      await worker(
        'mutation($jobId: ID!, $stepName: String!, $o: JSONObject, $n: Int) { completeStep(jobId: $jobId, stepName: $stepName, outputs: $o, attempt: $n) { seq } }',
        { ...ref, o: { sceneCount: count }, n: step.attempt },
      );
    } else if (step.status === 'RUNNING' && isMusicVideo(job)) {
      await worker(
        'mutation($jobId: ID!, $stepName: String!, $o: JSONObject, $n: Int) { completeStep(jobId: $jobId, stepName: $stepName, outputs: $o, attempt: $n) { seq } }',
        { ...ref, o: { video: `tenants/demo/music/${job.jobId}/video.mp4` }, n: step.attempt },
      );
    } else if (step.status === 'RUNNING') {
      const artifact = `tenants/demo/jobs/${job.jobId}/${step.name}-v${step.attempt}.bin`;
      await worker(
        'mutation($jobId: ID!, $stepName: String!, $a: [String!]) { completeStep(jobId: $jobId, stepName: $stepName, artifacts: $a) { seq } }',
        { ...ref, a: [artifact] },
      );
    }
  }

  // The render workers: each claims a scene, reports on it each tick and completes it with its
  // clip (and a lip-synced clip where asked). Once per music video, a worker crashes half-way
  // through a scene: it stops reporting and comes back a few ticks later with nothing, and the
  // scene is claimed again as a new attempt once its lease runs out.
  const sceneWorkers: SceneWorker[] = (options.sceneWorkerTokens ?? [options.workerToken, options.workerToken]).map((token) => ({
    token,
    down: 0,
  }));
  const crashedIn = new Set<string>();

  async function renderScene(w: SceneWorker): Promise<void> {
    if (w.down > 0) {
      w.down--;
      return;
    }
    if (!w.held) {
      const data = await call(
        w.token,
        'mutation($kind: String, $stage: String) { claimWork(kind: $kind, stage: $stage) { job { jobId } item { sequence attempt inputs } } }',
        { kind: 'MUSIC_VIDEO', stage: RENDER },
      );
      const claimed = data?.claimWork;
      if (claimed?.item)
        w.held = {
          jobId: claimed.job.jobId,
          sequence: claimed.item.sequence,
          attempt: claimed.item.attempt,
          progress: 0,
          lipSync: claimed.item.inputs?.needsLipSync === true,
        };
      return;
    }
    const held = w.held;
    held.progress = Math.round((held.progress + 1 / SCENE_REPORTS) * 1000) / 1000;
    if (held.progress >= 0.5 && held.progress < 1 && !crashedIn.has(held.jobId)) {
      crashedIn.add(held.jobId);
      w.held = undefined;
      w.down = 3;
      logger.debug({ jobId: held.jobId, sequence: held.sequence }, 'demo render worker crashed mid-scene');
      return;
    }
    const ref = { jobId: held.jobId, stage: RENDER, sequence: held.sequence, attempt: held.attempt };
    const vars = 'mutation($jobId: ID!, $stage: String!, $sequence: Int!, $attempt: Int!';
    if (held.progress < 1) {
      await call(
        w.token,
        `${vars}, $p: Float!) { reportWorkItemProgress(jobId: $jobId, stage: $stage, sequence: $sequence, attempt: $attempt, progress: $p) { status } }`,
        {
          ...ref,
          p: held.progress,
        },
      );
      return;
    }
    w.held = undefined;
    const base = `tenants/demo/music/${held.jobId}/scene-${held.sequence}`;
    await call(
      w.token,
      `${vars}, $o: JSONObject!) { completeWorkItem(jobId: $jobId, stage: $stage, sequence: $sequence, attempt: $attempt, outputs: $o) { status } }`,
      {
        ...ref,
        o: held.lipSync ? { videoClip: `${base}.mp4`, lipSyncedClip: `${base}-lipsync.mp4` } : { videoClip: `${base}.mp4` },
      },
    );
  }

  const createJob = async (projectId: string, kind: string): Promise<string> => {
    const template = DEMO_JOBS.find((j) => j.kind === kind) ?? DEMO_JOBS[0];
    // A key of its own makes each a new job (the same inputs would return the first one).
    const made = await call(options.editorToken, 'mutation($in: CreateJobInput!) { createJob(input: $in) { jobId } }', {
      in: {
        projectId,
        kind: template.kind,
        steps: template.steps,
        inputs: template.inputs,
        idempotencyKey: `demo-${kind}-${Date.now()}-${++created}`,
      },
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
    await Promise.all([
      ...jobs.map((job) => advance(job)),
      ...sceneWorkers.map((w) =>
        // One worker's refusal (its scene was taken over, say) is its own: it lets go and claims again.
        renderScene(w).catch((err) => {
          w.held = undefined;
          logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'demo render worker lost its scene');
        }),
      ),
    ]);
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

import { type Attribute, attr } from '../infra/dynamo/entity';

/*
 * The pipelines the server knows, declared as data: each kind's stages in order, the fields of its
 * inputs and of each stage's outputs (type, required, S3 key or not), the phase a client shows
 * while a stage runs, and which stages pause for a person's review. createJob, completeStep and
 * the phase a job shows are derived from these when createJob names no steps. A request that names
 * its steps (and any kind not declared here) keeps the free-form plan, so existing clients keep
 * working.
 */

/** One stage of a declared pipeline: a step of the job. */
export interface StageDeclaration {
  /** The step's name, as startStep and completeStep take it. */
  name: string;
  /** What a client shows while it runs (seed 001's generating_scenes, processing, composing). */
  phase: string;
  /** Completing it pauses it for a person's review instead; approveStep completes it. */
  review?: boolean;
  /** The fields completeStep's `outputs` must give (checked like inputs). */
  outputs?: Record<string, Attribute>;
}

export interface JobKindDeclaration {
  description: string;
  /** The fields of the job's `inputs`. */
  inputs: Record<string, Attribute>;
  stages: StageDeclaration[];
  /** Attempts per stage before the job fails, unless the request names its own. */
  maxAttempts?: number;
}

export const JOB_KINDS: Record<string, JobKindDeclaration> = {
  /** Seed 000: the asset creator's pipeline, a 3D character from a prompt, reviewed before rigging. */
  '3D_CHARACTER': {
    description: 'A rigged, animated 3D character from a prompt (seed 000).',
    inputs: {
      prompt: attr.string({ required: true, max: 4000 }),
      referenceImage: attr.string({ s3Key: true }),
      style: attr.string({ max: 200 }),
    },
    stages: [
      { name: 'text-to-image', phase: 'concept' },
      { name: 'refine', phase: 'concept', review: true },
      { name: '3d', phase: 'modeling' },
      { name: 'retopo', phase: 'modeling' },
      { name: 'rig', phase: 'rigging' },
      { name: 'anim', phase: 'animating' },
      { name: 'export', phase: 'exporting', outputs: { model: attr.string({ required: true, s3Key: true }), format: attr.string() } },
    ],
  },
  /** Seed 001: the music-video pipeline. */
  MUSIC_VIDEO: {
    description: 'A music video from a character, a product and a backing track (seed 001).',
    inputs: {
      characterImage: attr.string({ required: true, s3Key: true }),
      productImage: attr.string({ s3Key: true }),
      audioBackingTrack: attr.string({ required: true, s3Key: true }),
      prompt: attr.string({ max: 4000 }),
    },
    stages: [
      { name: 'generate-scenes', phase: 'generating_scenes', outputs: { sceneCount: attr.int({ required: true }) } },
      { name: 'render-scenes', phase: 'processing' },
      { name: 'compose', phase: 'composing', outputs: { video: attr.string({ required: true, s3Key: true }) } },
    ],
  },
  /** Seed 004: the photo editor. */
  PHOTO_EDIT: {
    description: 'An uploaded photo analysed, edited and finalized (seed 004).',
    inputs: {
      s3TempKey: attr.string({ required: true, s3Key: true }),
      fileSize: attr.int({ required: true }),
      fileType: attr.string({ required: true, max: 100 }),
      originalFileName: attr.string({ max: 255 }),
    },
    stages: [
      { name: 'analyze', phase: 'processing', outputs: { analysisResult: attr.json()({ required: true }) } },
      { name: 'edit', phase: 'editing', outputs: { editResult: attr.json()({ required: true }) } },
      { name: 'finalize', phase: 'editing', outputs: { s3FinalKey: attr.string({ required: true, s3Key: true }) } },
    ],
  },
};

/** The declared kind of that name, or undefined for a free-form kind. */
export function declaredKind(kind: string): JobKindDeclaration | undefined {
  return Object.hasOwn(JOB_KINDS, kind) ? JOB_KINDS[kind] : undefined;
}

/** The phase a job shows: its current stage's while it runs, else its status in lower case. */
export function phaseOf(job: { kind: string; status: string; currentStep?: string | null; declared?: boolean }): string {
  if (job.status === 'RUNNING' || job.status === 'PAUSED') {
    const stage = job.declared ? declaredKind(job.kind)?.stages.find((s) => s.name === job.currentStep) : undefined;
    if (stage) return stage.phase;
    if (job.currentStep) return job.currentStep;
  }
  return job.status === 'QUEUED' ? 'pending' : job.status.toLowerCase();
}

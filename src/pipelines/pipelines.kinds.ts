import { entities } from '../common/entities';
import { attr } from '../infra/dynamo/entity';
import { registerJobKind } from '../job/job.kinds';

/*
 * The studio's pipelines, declared as data (src/job/job.kinds.ts says what a declaration holds):
 * the seeds' asset creator, music video and photo editor, and a batch of files. They register
 * themselves here, outside the engine, as the server's own kinds do from their folders, so the
 * engine knows no particular pipeline. src/features.ts loads this module first, so the kinds are
 * declared (and listed by jobKinds) in this order before any request reads them; a test that
 * decides on them without a server imports it itself.
 */

/*
 * A music video's scene (seed 001) is declared once, as the project's Scene entity; the items of
 * MUSIC_VIDEO's render-scenes stage take its fields from that declaration, so a scene to render and
 * a scene of the project are the same fields. An item may name the project's scene it renders
 * (`sceneId`); the item is one run of it, with its own attempts, lease and status.
 */
const scene = entities.Scene.attributes;

/**
 * Seed 000: the asset creator's pipeline, a 3D character from a prompt, its rig reviewed by a
 * person before it is animated. This is the one place that says which stage is reviewed: the
 * demo (src/demo) and GraphiQL's CreateJob tab create the kind without steps, so it applies.
 */
export const THREE_D_CHARACTER = registerJobKind('3D_CHARACTER', {
  description:
    'A rigged, animated 3D character from a prompt; a person reviews the rig before it is animated, and the export becomes a model asset.',
  inputs: {
    prompt: attr.string({ required: true, max: 4000 }),
    referenceImage: attr.string({ s3Key: true }),
    style: attr.string({ max: 200 }),
  },
  // The steps before the review follow from the prompt, the seed and the model version alone,
  // so the same ones are not paid for twice within the seed's 72 hours.
  stages: [
    { name: 'text-to-image', phase: 'concept', reuse: { ttlHours: 72 } },
    { name: 'refine', phase: 'concept', reuse: { ttlHours: 72 } },
    { name: '3d', phase: 'modeling', reuse: { ttlHours: 72 } },
    { name: 'retopo', phase: 'modeling', reuse: { ttlHours: 72 } },
    { name: 'rig', phase: 'rigging', review: true },
    { name: 'anim', phase: 'animating' },
    {
      name: 'export',
      phase: 'exporting',
      outputs: { model: attr.string({ required: true, s3Key: true }), format: attr.string() },
      asset: { type: 'model', file: 'model' },
    },
  ],
});

/** Seed 001: the music-video pipeline. */
export const MUSIC_VIDEO = registerJobKind('MUSIC_VIDEO', {
  description:
    'A music video from a character, a product and a backing track: scenes are generated, rendered in parallel (some lip-synced), then composed.',
  inputs: {
    characterImage: attr.string({ required: true, s3Key: true }),
    productImage: attr.string({ s3Key: true }),
    audioBackingTrack: attr.string({ required: true, s3Key: true }),
    prompt: attr.string({ max: 4000 }),
  },
  stages: [
    { name: 'generate-scenes', phase: 'generating_scenes', outputs: { sceneCount: attr.int({ required: true }) } },
    {
      name: 'render-scenes',
      phase: 'processing',
      // A scene rendered for the same character, product and track from the same scene fields
      // is the same clip, whichever project's Scene it is linked to (sceneId is not part of it).
      reuse: {
        ttlHours: 72,
        keyFields: ['prompt', 'negativePrompt', 'durationSeconds', 'referenceImages', 'audioClip', 'needsLipSync'],
      },
      fanOut: {
        inputs: {
          sceneId: attr.id({ description: "The project's Scene this item renders (optional)." }),
          prompt: scene.prompt,
          negativePrompt: scene.negativePrompt,
          durationSeconds: scene.durationSeconds,
          referenceImages: attr.strings({ max: 10, s3Key: true }),
          audioClip: scene.audioClip,
          needsLipSync: attr.boolean(),
        },
        outputs: {
          videoClip: attr.string({ required: true, s3Key: true }),
          lipSyncedClip: scene.lipSyncedClip,
        },
        // A scene renders in minutes; one still running after half an hour is stuck on its GPU.
        attemptTimeoutSeconds: 1800,
        // A render fails mostly on a busy or lost GPU node: wait 5 s, then 15 s, 45 s … up to 5 minutes.
        retryBackoff: { initialSeconds: 5, factor: 3, maxSeconds: 300, jitter: 0.2 },
      },
    },
    { name: 'compose', phase: 'composing', outputs: { video: attr.string({ required: true, s3Key: true }) } },
  ],
});

/** Seed 004: the photo editor. */
export const PHOTO_EDIT = registerJobKind('PHOTO_EDIT', {
  description: 'An uploaded photo analysed, edited and finalized; the final image becomes an asset.',
  inputs: {
    s3TempKey: attr.string({ required: true, s3Key: true }),
    fileSize: attr.int({ required: true }),
    fileType: attr.string({ required: true, max: 100 }),
    originalFileName: attr.string({ max: 255 }),
  },
  stages: [
    { name: 'analyze', phase: 'processing', outputs: { analysisResult: attr.json()({ required: true }) } },
    { name: 'edit', phase: 'editing', outputs: { editResult: attr.json()({ required: true }) } },
    {
      name: 'finalize',
      phase: 'editing',
      outputs: { s3FinalKey: attr.string({ required: true, s3Key: true }) },
      asset: { type: 'image', file: 's3FinalKey' },
    },
  ],
});

/** A batch of files processed in parallel: items given at creation (or added), a few may fail. */
export const BATCH = registerJobKind('BATCH', {
  description: 'A batch of files processed in parallel on any number of workers; up to a quarter may fail.',
  inputs: { label: attr.string({ max: 200 }) },
  stages: [
    {
      name: 'process',
      phase: 'processing',
      fanOut: {
        inputs: { source: attr.string({ required: true, s3Key: true }), params: attr.json()() },
        outputs: { result: attr.string({ required: true, s3Key: true }), metrics: attr.json()() },
        attempts: 2,
        failurePolicy: { maxFailedPercent: 25 },
        // A file is processed in seconds to minutes; one still running after 15 minutes is stuck.
        attemptTimeoutSeconds: 900,
        // A file fails mostly on a passing fault (a throttled read, a restarted worker): a second later, then longer.
        retryBackoff: { initialSeconds: 1, factor: 2, maxSeconds: 60, jitter: 0.2 },
      },
    },
  ],
});

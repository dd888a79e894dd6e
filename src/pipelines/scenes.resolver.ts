import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { ExpiresIn } from '../common/args';
import { entities } from '../common/entities';
import { feature } from '../common/feature';
import { ObjectIdResolver } from '../common/global-id';
import { shapeObjectType } from '../common/model-types';
import type { Context } from '../context';
import { attr, pickAttributes } from '../infra/dynamo/entity';
import { MAX_SCENES_PAGE } from '../job/job.aggregate';
import { Job } from '../job/job.type';
import { MUSIC_VIDEO } from './pipelines.kinds';

/*
 * Seed 001's view of a music video's scenes: the items of a MUSIC_VIDEO job's render-scenes stage,
 * typed as the seed describes a scene, with presigned URLs for their files. Particular to that
 * pipeline, so it lives beside its declaration, not in the engine.
 */

export const JobScene = shapeObjectType({
  name: 'JobScene',
  description:
    "A scene of a MUSIC_VIDEO job as seed 001 describes it: one item of its render-scenes stage, typed, with presigned URLs for its files. sceneId links it to the project's Scene when the item names one.",
  fields: {
    /** The job the scene belongs to: part of its id. */
    jobId: attr.id({ required: true, hidden: true }),
    sequence: attr.int({ required: true, description: 'The scene’s place in the video, from 1 (its item’s sequence).' }),
    sceneId: attr.id({ description: "The project's Scene this item renders, when it names one." }),
    status: attr.string({ required: true, description: 'pending → processing → completed | failed' }),
    // Optional here: an item that names a Scene may leave its prompt to it.
    prompt: attr.string({ description: 'What the scene shows.' }),
    // The rest as the Scene declares them, in this view's words.
    ...pickAttributes(entities.Scene.attributes, {
      negativePrompt: 'What the scene must not show.',
      durationSeconds: 'Its length in seconds.',
      referenceImages: 'S3 keys of its reference images, in order.',
      audioClip: 'S3 key of its slice of the backing track.',
      videoClip: 'S3 key of the rendered clip, once completed.',
      needsLipSync: 'True when the clip is lip-synced to the audio clip.',
      lipSyncedClip: 'S3 key of the lip-synced clip, once completed (lip-synced scenes only).',
      retryCount: 'Attempts made before the current one.',
      errorMessage: 'Why its last attempt failed.',
    }),
  },
});
export type JobScene = InstanceType<typeof JobScene>;

/** Job.scenes: the view of a MUSIC_VIDEO job's scenes (null for other kinds). */
@Resolver(() => Job)
export class JobScenesResolver {
  @FieldResolver(() => [JobScene], {
    nullable: true,
    description: "A MUSIC_VIDEO job's scenes (its render-scenes items) as seed 001 describes them; null for other kinds.",
  })
  async scenes(
    @Root() job: Job,
    @Ctx() ctx: Context,
    @Arg('limit', () => Int, {
      nullable: true,
      description: `How many scenes, in sequence order (1–${MAX_SCENES_PAGE}; ${MAX_SCENES_PAGE} when left out).`,
    })
    limit?: number | null,
    @Arg('afterSequence', () => Int, {
      nullable: true,
      description: 'Only the scenes after this sequence (the last one of the previous page): a stage holds up to 10,000.',
    })
    afterSequence?: number | null,
  ) {
    if (job.kind !== MUSIC_VIDEO || !job.declared) return null;
    const items = await ctx.repos.jobs.items.range(job.jobId, 'render-scenes', afterSequence ?? 0, limit ?? MAX_SCENES_PAGE);
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const status: Record<string, string> = { PENDING: 'pending', RUNNING: 'processing', COMPLETED: 'completed', FAILED: 'failed' };
    return items.map((item) => {
      const input = item.inputs ?? {};
      const output = item.outputs ?? {};
      const failed = item.status === 'FAILED' || (item.status === 'PENDING' && item.error);
      return {
        jobId: job.jobId,
        sequence: item.sequence,
        sceneId: text(input.sceneId),
        status: status[item.status] ?? 'pending',
        prompt: text(input.prompt),
        negativePrompt: text(input.negativePrompt),
        durationSeconds: typeof input.durationSeconds === 'number' ? input.durationSeconds : undefined,
        referenceImages: Array.isArray(input.referenceImages)
          ? input.referenceImages.filter((k): k is string => typeof k === 'string')
          : [],
        audioClip: text(input.audioClip),
        videoClip: text(output.videoClip),
        needsLipSync: input.needsLipSync === true,
        lipSyncedClip: text(output.lipSyncedClip),
        retryCount: item.attempt - 1,
        errorMessage: failed ? item.error?.message : undefined,
      };
    });
  }
}

@Resolver(() => JobScene)
export class JobSceneResolver extends ObjectIdResolver(
  JobScene,
  'Unique across all types and stable, so a client cache keys the scene by it (its job and sequence).',
  (scene) => [scene.jobId, scene.sequence],
) {
  @FieldResolver(() => String, { nullable: true, description: 'A presigned GET of the audio clip, made now (default 1 hour).' })
  audioClipUrl(@Root() scene: JobScene, @ExpiresIn() expiresIn: number | null, @Ctx() ctx: Context) {
    return scene.audioClip ? ctx.repos.files.downloadUrl(scene.audioClip, expiresIn) : null;
  }

  @FieldResolver(() => String, { nullable: true, description: 'A presigned GET of the video clip, made now (default 1 hour).' })
  videoClipUrl(@Root() scene: JobScene, @ExpiresIn() expiresIn: number | null, @Ctx() ctx: Context) {
    return scene.videoClip ? ctx.repos.files.downloadUrl(scene.videoClip, expiresIn) : null;
  }

  @FieldResolver(() => String, { nullable: true, description: 'A presigned GET of the lip-synced clip, made now (default 1 hour).' })
  lipSyncedClipUrl(@Root() scene: JobScene, @ExpiresIn() expiresIn: number | null, @Ctx() ctx: Context) {
    return scene.lipSyncedClip ? ctx.repos.files.downloadUrl(scene.lipSyncedClip, expiresIn) : null;
  }

  @FieldResolver(() => [String], { description: 'Presigned GETs of the reference images, in order.' })
  referenceImageUrls(@Root() scene: JobScene, @ExpiresIn() expiresIn: number | null, @Ctx() ctx: Context) {
    return Promise.all(scene.referenceImages.map((key) => ctx.repos.files.downloadUrl(key, expiresIn)));
  }
}

/** This feature's resolvers: it reads through the job feature's repository and adds none. */
export const scenesFeature = feature({
  resolvers: [JobScenesResolver, JobSceneResolver],
  repositories: () => ({}),
});

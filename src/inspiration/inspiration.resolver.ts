import { attr } from '../infra/dynamo/entity';
import { Arg, Args, Authorized, Ctx, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Role } from '../auth/principal';
import { entities, type EntityItem } from '../common/entities';
import { feature } from '../common/feature';
import { keyArg, standardResolver } from '../common/standard-resolver';
// Its upload status enum (AssetStatus) is registered there, before this declaration is made into types.
import { uploadedFile, uploadPayload } from '../common/files/upload.type';
import { argsType, inputType, modelTypes } from '../common/model-types';
import { PageArgs, pageRequest } from '../common/pagination';
import { Selected, type Selection } from '../common/projection';
import { idempotencyKeyArg } from '../common/idempotency';
import { badInput } from '../errors';
import type { Context } from '../context';
import { type InspirationUploadRequest, InspirationRepository } from './inspiration.repository';
import { ExpiresIn, PresignedUrl } from '../common/args';

/*
 * Inspiration's types come from its declaration (src/common/entities.ts); what is particular to it
 * is its file: the upload that creates one, and the `url` computed from its key.
 */
const { type: Inspiration, connection: InspirationConnection } = modelTypes(entities.Inspiration);

const InspirationsArgs = argsType(
  'InspirationsArgs',
  {
    tag: attr.string({ description: 'Only inspiration with this tag (case-insensitive).' }),
    projectId: attr.id({ description: 'Only the inspiration linked to this project (not with tag).' }),
  },
  PageArgs,
);
type InspirationsArgs = InstanceType<typeof InspirationsArgs>;

export const RequestInspirationUploadInput = inputType(
  'RequestInspirationUploadInput',
  'An inspiration file you are about to upload: the upload URL binds its type and size.',
  {
    type: attr.json<EntityItem<'Inspiration'>['type']>()({
      required: true,
      apiType: 'InspirationType',
      description: 'Image, audio or file.',
    }),
    ...uploadedFile(),
    text: attr.string({ description: 'A note about it.' }),
    tags: attr.strings({ description: 'Tags to find it by.' }),
    linkedProjectId: entities.Inspiration.attributes.linkedProjectId,
  },
);
// The repository's request is what this input gives.
export type RequestInspirationUploadInput = InspirationUploadRequest;

const InspirationUpload = uploadPayload({
  name: 'InspirationUpload',
  description: 'A new inspiration waiting for its file, and where to PUT it; confirmInspirationUpload finishes it.',
  fields: {
    inspiration: attr.json()({ required: true, apiType: 'Inspiration', description: 'The new inspiration, waiting for its file.' }),
  },
});

// This feature adds its repository to ctx.repos itself, so that the context imports no feature (see src/context.ts).
declare module '../context' {
  interface Repositories {
    inspirations: InspirationRepository;
  }
}

/** Inspiration's query of one, create, update and delete (see standard-resolver.ts); requestInspirationUpload creates one with a file. */
const InspirationStandard = standardResolver(entities.Inspiration, {
  one: (ctx, [inspirationId]) => ctx.repos.inspirations.get(inspirationId),
  create: (ctx, _parent, input, key) => ctx.repos.inspirations.create(input, key),
  update: (ctx, [inspirationId], version, input) => ctx.repos.inspirations.update(inspirationId, version, input),
  delete: (ctx, [inspirationId], version) => ctx.repos.inspirations.delete(inspirationId, version),
});

@Resolver(() => Inspiration)
export class InspirationResolver {
  @Authorized()
  @Query(() => InspirationConnection, { description: 'Newest first, optionally by tag or by the project it is linked to.' })
  inspirations(
    @Args(() => InspirationsArgs) { tag, projectId, ...page }: InspirationsArgs,
    @Ctx() ctx: Context,
    @Selected() selection: Selection | undefined,
  ) {
    if (projectId) {
      if (tag) throw badInput('Filter by tag or by projectId, not both.', 'projectId');
      return ctx.repos.inspirations.ofProject(projectId, pageRequest(page), selection);
    }
    return ctx.repos.inspirations.list(tag, pageRequest(page), selection);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => InspirationUpload, {
    description: 'Creates an inspiration with a file to upload: returns a presigned PUT bound to the declared type and size.',
  })
  requestInspirationUpload(
    @Arg('input', () => RequestInspirationUploadInput, { description: 'The file you are about to upload.' })
    input: RequestInspirationUploadInput,
    @Arg('idempotencyKey', () => String, idempotencyKeyArg) idempotencyKey: string | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.inspirations.requestUpload(input, idempotencyKey);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Inspiration, { description: 'Checks the uploaded object (size and type) and makes the file READY.' })
  confirmInspirationUpload(@keyArg('inspirationId') inspirationId: string, @Ctx() ctx: Context) {
    return ctx.repos.inspirations.confirmUpload(inspirationId);
  }

  @PresignedUrl('A presigned GET of the file, made now (default 1 hour); null for text or an unconfirmed upload.', 's3Key', 'fileStatus')
  url(@Root() inspiration: EntityItem<'Inspiration'>, @ExpiresIn() expiresIn: number | null, @Ctx() ctx: Context) {
    return inspiration.s3Key && inspiration.fileStatus !== 'uploading' ? ctx.repos.files.downloadUrl(inspiration.s3Key, expiresIn) : null;
  }
}

/** This feature's resolvers and repositories (see src/features.ts). */
export const inspirationFeature = feature({
  resolvers: [InspirationStandard, InspirationResolver],
  repositories: (scope, { projects }) => ({ inspirations: new InspirationRepository(scope, projects) }),
  nodes: { Inspiration: { type: Inspiration, load: (repos, v) => repos.inspirations.get(v.inspirationId) } },
});

import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Role } from '../auth/principal';
import { feature } from '../common/feature';
import { pageRequest } from '../common/pagination';
import { idempotencyKeyArg } from '../common/idempotency';
import { badInput } from '../errors';
import type { Context } from '../context';
import {
  CreateInspirationInput,
  Inspiration,
  InspirationConnection,
  InspirationsArgs,
  InspirationUpload,
  RequestInspirationUploadInput,
  UpdateInspirationInput,
} from './inspiration.type';
import { InspirationRepository } from './inspiration.repository';

// This feature adds its repository to ctx.repos itself, so that the context imports no feature (see src/context.ts).
declare module '../context' {
  interface Repositories {
    inspirations: InspirationRepository;
  }
}

@Resolver(() => Inspiration)
export class InspirationResolver {
  @Authorized()
  @Query(() => Inspiration, { nullable: true, description: 'One piece of inspiration; null when your tenant has none by that id.' })
  inspiration(@Arg('inspirationId', () => ID, { description: "The inspiration's id." }) inspirationId: string, @Ctx() ctx: Context) {
    return ctx.repos.inspirations.get(inspirationId);
  }

  @Authorized()
  @Query(() => InspirationConnection, { description: 'Newest first, optionally by tag or by the project it is linked to.' })
  inspirations(@Args() { tag, projectId, ...page }: InspirationsArgs, @Ctx() ctx: Context) {
    if (projectId) {
      if (tag) throw badInput('Filter by tag or by projectId, not both.', 'projectId');
      return ctx.repos.inspirations.ofProject(projectId, pageRequest(page));
    }
    return ctx.repos.inspirations.list(tag, pageRequest(page));
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Inspiration, { description: 'Adds a piece of inspiration (text, or a file already in S3).' })
  createInspiration(
    @Arg('input', { description: 'What the new one is made of.' }) input: CreateInspirationInput,
    @Arg('idempotencyKey', () => String, idempotencyKeyArg) idempotencyKey: string | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.inspirations.create(input, idempotencyKey);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Inspiration, { description: 'Changes a piece of inspiration.' })
  updateInspiration(
    @Arg('inspirationId', () => ID, { description: "The inspiration's id." }) inspirationId: string,
    @Arg('expectedVersion', () => Int, {
      description: 'The version you last read: if it has moved on since, CONFLICT names the current one.',
    })
    expectedVersion: number,
    @Arg('input', { description: 'The fields to change; an omitted field is kept.' }) input: UpdateInspirationInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.inspirations.update(inspirationId, expectedVersion, input);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Inspiration, { description: 'Deletes it and returns it as it was.' })
  deleteInspiration(
    @Arg('inspirationId', () => ID, { description: "The inspiration's id." }) inspirationId: string,
    @Arg('expectedVersion', () => Int, {
      nullable: true,
      description: 'The version you last read: if it has moved on since, CONFLICT names the current one.',
    })
    expectedVersion: number | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.inspirations.delete(inspirationId, expectedVersion);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => InspirationUpload, {
    description: 'Creates an inspiration with a file to upload: returns a presigned PUT bound to the declared type and size.',
  })
  requestInspirationUpload(
    @Arg('input', { description: 'The file you are about to upload.' }) input: RequestInspirationUploadInput,
    @Arg('idempotencyKey', () => String, idempotencyKeyArg) idempotencyKey: string | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.inspirations.requestUpload(input, idempotencyKey);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Inspiration, { description: 'Checks the uploaded object (size and type) and makes the file READY.' })
  confirmInspirationUpload(
    @Arg('inspirationId', () => ID, { description: "The inspiration's id." }) inspirationId: string,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.inspirations.confirmUpload(inspirationId);
  }

  @FieldResolver(() => String, {
    nullable: true,
    description: 'A presigned GET of the file, made now (default 1 hour); null for text or an unconfirmed upload.',
  })
  url(
    @Root() inspiration: Inspiration,
    @Arg('expiresIn', () => Int, {
      nullable: true,
      description: 'Seconds the URL stays valid: DOWNLOAD_URL_TTL_SECONDS when omitted, at most DOWNLOAD_URL_MAX_TTL_SECONDS.',
    })
    expiresIn: number | null,
    @Ctx() ctx: Context,
  ) {
    return inspiration.s3Key && inspiration.fileStatus !== 'uploading' ? ctx.repos.files.downloadUrl(inspiration.s3Key, expiresIn) : null;
  }
}

/** This feature's resolvers and repositories (see src/features.ts). */
export const inspirationFeature = feature({
  resolvers: [InspirationResolver],
  repositories: (scope, { projects }) => ({ inspirations: new InspirationRepository(scope, projects) }),
  nodes: { Inspiration: { type: Inspiration, load: (repos, v) => repos.inspirations.get(v.inspirationId) } },
});

import { entities } from '../common/entities';
import { Arg, Args, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Role } from '../auth/principal';
import { feature } from '../common/feature';
import { ObjectIdResolver } from '../common/global-id';
import { keyArg, standardResolver } from '../common/standard-resolver';
import { pageRequest } from '../common/pagination';
import { Reads, Selected, type Selection } from '../common/projection';
import { idempotencyKeyArg } from '../common/idempotency';
import type { Context } from '../context';
import { projectChildrenResolver } from '../project/project-child.feature';
import { badInput } from '../errors';
import { Log } from '../log/log.type';
import {
  Asset,
  AssetConnection,
  AssetRef,
  AssetsArgs,
  AssetUpload,
  AssetVersion,
  RequestAssetUploadInput,
  RequestAssetVersionInput,
} from './asset.type';
import { AssetRepository } from './asset.repository';
import { ExpiresIn, optionalExpectedVersionArg, PresignedUrl } from '../common/args';

// This feature adds its repository to ctx.repos itself, so that the context imports no feature (see src/context.ts).
declare module '../context' {
  interface Repositories {
    assets: AssetRepository;
  }
}

/** Asset's query of one, create, update and delete (see standard-resolver.ts); the upload flow creates assets too. */
const AssetStandard = standardResolver(entities.Asset, {
  one: (ctx, [projectId, assetId]) => ctx.repos.assets.get(projectId, assetId),
  create: (ctx, [projectId], input, key) => ctx.repos.assets.create(projectId, input, key),
  update: (ctx, [projectId, assetId], version, input) => ctx.repos.assets.update(projectId, assetId, version, input),
  delete: (ctx, [projectId, assetId], version) => ctx.repos.assets.delete(projectId, assetId, version),
});

@Resolver(() => Asset)
export class AssetResolver {
  @Authorized()
  @Query(() => AssetConnection, {
    description:
      "A project's assets (projectId), or the ready assets of one type across your projects, newest first, optionally created within [from, to).",
  })
  assets(
    @Args(() => AssetsArgs) { projectId, type, from, to, ...page }: AssetsArgs,
    @Ctx() ctx: Context,
    @Selected() selection: Selection | undefined,
  ) {
    // projectId stays the first way to call it, so the clients that list a project's assets keep working.
    if (projectId) {
      if (type || from || to) throw badInput('type, from and to list across projects: leave out projectId to use them.', 'projectId');
      return ctx.repos.assets.list(projectId, pageRequest(page), selection);
    }
    if (!type) throw badInput('Give projectId (one project) or type (across your projects).', 'type');
    return ctx.repos.assets.listByType(type, { from, to }, pageRequest(page), selection);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => AssetUpload, {
    description: 'Starts an upload: creates the asset (UPLOADING) and returns a presigned PUT bound to the declared type and size.',
  })
  requestAssetUpload(
    @keyArg('projectId') projectId: string,
    @Arg('input', () => RequestAssetUploadInput, { description: 'The file you are about to upload.' }) input: RequestAssetUploadInput,
    @Arg('idempotencyKey', () => String, idempotencyKeyArg) idempotencyKey: string | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.assets.requestUpload(projectId, input, idempotencyKey);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => AssetUpload, { description: 'Starts the upload of the next version of a ready asset.' })
  requestAssetVersionUpload(
    @Args(() => AssetRef) { projectId, assetId }: AssetRef,
    @Arg('input', () => RequestAssetVersionInput, { description: 'The file you are about to upload.' }) input: RequestAssetVersionInput,
    @Arg('expectedVersion', () => Int, optionalExpectedVersionArg) expectedVersion: number | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.assets.requestVersionUpload(projectId, assetId, input, expectedVersion);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Asset, { description: 'Checks the uploaded object (size and type) and makes that version READY and latest.' })
  confirmAssetUpload(@Args(() => AssetRef) { projectId, assetId }: AssetRef, @Ctx() ctx: Context) {
    return ctx.repos.assets.confirmUpload(projectId, assetId);
  }

  @FieldResolver(() => Log, { nullable: true, description: 'The log this asset documents, when linked.' })
  @Reads('linkedLogId')
  linkedLog(@Root() asset: Asset, @Ctx() ctx: Context) {
    return asset.linkedLogId ? ctx.repos.logs.get(asset.projectId, asset.linkedLogId) : null;
  }

  @FieldResolver(() => [AssetVersion], { description: 'Every confirmed version, oldest first, and an upload still in progress.' })
  @Reads('versions')
  versions(@Root() asset: Asset, @Ctx() ctx: Context) {
    return ctx.repos.assets.versions(asset);
  }

  @PresignedUrl('A presigned GET of the latest version, made now (default 1 hour); null while nothing is confirmed.', 'status', 's3Key')
  url(@Root() asset: Asset, @ExpiresIn('Seconds; at most the configured maximum.') expiresIn: number | null, @Ctx() ctx: Context) {
    return asset.status === 'ready' ? ctx.repos.files.downloadUrl(asset.s3Key, expiresIn) : null;
  }
}

@Resolver(() => AssetVersion)
export class AssetVersionResolver extends ObjectIdResolver(
  AssetVersion,
  'Unique across all types and stable (made from its object key, which no other version shares), so a client cache keys the version by it.',
  (version) => [version.s3Key],
) {
  @FieldResolver(() => String, {
    nullable: true,
    description:
      'A presigned GET of this version, made now; null until it is confirmed, and for an archived version unless includeArchived.',
  })
  url(
    @Root() version: AssetVersion,
    @ExpiresIn() expiresIn: number | null,
    @Arg('includeArchived', () => Boolean, {
      defaultValue: false,
      description: 'Sign an archived version too (its object is in an archival storage class, which may cost more to read).',
    })
    includeArchived: boolean,
    @Ctx() ctx: Context,
  ) {
    const readable = version.status === 'ready' || (version.status === 'archived' && includeArchived);
    return readable ? ctx.repos.files.downloadUrl(version.s3Key, expiresIn) : null;
  }
}

/** Log.assets: the assets a log links, added here, with the assets, so that the log feature knows nothing of them. */
@Resolver(() => Log)
export class LogAssetsResolver {
  @FieldResolver(() => [Asset], { description: 'Assets linked to this log (one batched read for all logs of a request).' })
  @Reads('assetIds')
  assets(@Root() log: Log, @Ctx() ctx: Context) {
    return ctx.repos.assets.getMany(log.projectId, log.assetIds ?? []);
  }
}

/** This feature's resolvers and repositories (see src/features.ts). */
export const assetFeature = feature({
  resolvers: [
    AssetStandard,
    AssetResolver,
    AssetVersionResolver,
    LogAssetsResolver,
    projectChildrenResolver('assets', Asset, (ctx) => ctx.repos.assets),
  ],
  repositories: (scope, { projects }) => ({ assets: new AssetRepository(scope, projects, entities.Asset) }),
  nodes: { Asset: { type: Asset, load: (repos, v) => repos.assets.get(v.projectId, v.assetId) } },
});

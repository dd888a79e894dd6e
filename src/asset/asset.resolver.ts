import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Role } from '../auth/principal';
import type { Context } from '../context';
import { Log } from '../log/log.type';
import { Asset, AssetConnection, AssetRef, AssetsArgs, CreateAssetInput, UpdateAssetInput } from './asset.type';

@Resolver(() => Asset)
export class AssetResolver {
  @Authorized()
  @Query(() => Asset, { nullable: true })
  asset(@Args() { projectId, assetId }: AssetRef, @Ctx() ctx: Context) {
    return ctx.repos.assets.get(projectId, assetId);
  }

  @Authorized()
  @Query(() => AssetConnection)
  assets(@Args() { projectId, first, after }: AssetsArgs, @Ctx() ctx: Context) {
    return ctx.repos.assets.list(projectId, { first, after });
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Asset, { description: 'Registers an object already in S3 (the upload flow creates assets too).' })
  createAsset(@Arg('projectId', () => ID) projectId: string, @Arg('input') input: CreateAssetInput, @Ctx() ctx: Context) {
    return ctx.repos.assets.create(projectId, input);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Asset)
  updateAsset(
    @Args() { projectId, assetId }: AssetRef,
    @Arg('expectedVersion', () => Int) expectedVersion: number,
    @Arg('input') input: UpdateAssetInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.assets.update(projectId, assetId, expectedVersion, input);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Asset, { description: 'Deletes the asset and returns it as it was.' })
  deleteAsset(
    @Args() { projectId, assetId }: AssetRef,
    @Arg('expectedVersion', () => Int, { nullable: true }) expectedVersion: number | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.assets.delete(projectId, assetId, expectedVersion);
  }

  @FieldResolver(() => Log, { nullable: true })
  linkedLog(@Root() asset: Asset, @Ctx() ctx: Context) {
    return asset.linkedLogId ? ctx.repos.logs.get(asset.projectId, asset.linkedLogId) : null;
  }
}

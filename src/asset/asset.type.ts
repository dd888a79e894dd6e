import { attr } from '../infra/dynamo/entity';
import { ArgsType, Field, ID, InputType, Int } from 'type-graphql';
import { ASSET_VERSION, type AssetVersionItem, entities, type EntityItem } from '../common/entities';
import { attributeEnum, modelTypes, shapeObjectType } from '../common/model-types';
import { PageArgs } from '../common/pagination';
import { DateTime } from '../common/scalars';
// Its upload status enum (AssetStatus) is registered there, before this declaration is made into types.
import type { UploadTarget } from '../common/files/upload.type';
import '../common/files/upload.type';

/** The kinds of asset and their GraphQL enum, from the declaration. */
export const AssetType = attributeEnum(entities.Asset, 'type', entities.Asset.attributes.type);
export type AssetType = EntityItem<'Asset'>['type'];

/** One version of an asset's file, from its declaration (src/common/entities.ts); its id and url are field resolvers in asset.resolver.ts. */
export const AssetVersion = shapeObjectType(ASSET_VERSION, entities.Asset);
export type AssetVersion = AssetVersionItem;

/**
 * An asset's GraphQL types, from its declaration (src/common/entities.ts); its versions, url and
 * linked log are field resolvers in asset.resolver.ts.
 */
export const {
  type: Asset,
  connection: AssetConnection,
  createInput: CreateAssetInput,
  updateInput: UpdateAssetInput,
} = modelTypes(entities.Asset);
export type Asset = EntityItem<'Asset'>;

@ArgsType()
export class AssetRef {
  @Field(() => ID, { description: "The project's id." })
  projectId!: string;

  @Field(() => ID, { description: "The asset's id." })
  assetId!: string;
}

@ArgsType()
export class AssetsArgs extends PageArgs {
  @Field(() => ID, {
    nullable: true,
    description:
      "A project's assets, oldest first (type, from and to do not apply). Without it, give type: the tenant's assets of that type.",
  })
  projectId?: string | null;

  @Field(() => AssetType, { nullable: true, description: 'Across your projects: the ready assets of this type, newest first.' })
  type?: AssetType | null;

  @Field(() => DateTime, { nullable: true, description: 'With type: created at or after this instant.' })
  from?: Date | null;

  @Field(() => DateTime, { nullable: true, description: 'With type: created before this instant.' })
  to?: Date | null;
}

@InputType({ description: 'The file you are about to upload: the upload URL binds its type and size.' })
export class RequestAssetUploadInput {
  @Field(() => AssetType, { description: 'What kind of file it is.' })
  type!: AssetType;

  @Field({ description: 'The original file name; the object key uses a sanitized copy.' })
  fileName!: string;

  @Field({ description: 'The content type the upload will send, e.g. image/png. It is signed into the URL.' })
  contentType!: string;

  @Field(() => Int, { description: 'The exact size in bytes. It is signed into the URL and checked on confirm.' })
  size!: number;

  @Field(() => ID, { nullable: true, description: 'The log this asset documents, if any.' })
  linkedLogId?: string | null;

  @Field(() => String, { nullable: true, description: 'Alternative text for people who cannot see the image.' })
  alt?: string | null;
}

@InputType({ description: 'The file of the next version of an asset: the upload URL binds its type and size.' })
export class RequestAssetVersionInput {
  @Field({ description: "The file's name; it ends the object key." })
  fileName!: string;

  @Field({ description: "The file's media type: the upload must send exactly this." })
  contentType!: string;

  @Field(() => Int, { description: "The file's size in bytes: the upload must be exactly this long (at most UPLOAD_MAX_BYTES)." })
  size!: number;
}

export const AssetUpload = shapeObjectType({
  name: 'AssetUpload',
  description: 'A new asset in UPLOADING and where to PUT its file; confirmAssetUpload makes it READY.',
  fields: {
    asset: attr.json<Asset>()({ required: true, apiType: 'Asset', description: 'The new asset, in UPLOADING.' }),
    version: attr.int({ required: true, description: 'The version being uploaded.' }),
    upload: attr.json<UploadTarget>()({ required: true, apiType: 'UploadTarget', description: 'Where and how to send the file.' }),
  },
});
export type AssetUpload = InstanceType<typeof AssetUpload>;

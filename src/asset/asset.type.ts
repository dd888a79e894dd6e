import { attr } from '../infra/dynamo/entity';
import { ASSET_VERSION, type AssetVersionItem, entities, type EntityItem } from '../common/entities';
import { argsType, attributeEnum, inputType, modelTypes, shapeObjectType } from '../common/model-types';
import { keyArgsOf } from '../common/standard-resolver';
import { PageArgs } from '../common/pagination';
// Its upload status enum (AssetStatus) is registered there, before this declaration is made into types.
import { uploadedFile, uploadPayload } from '../common/files/upload.type';

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

/** The arguments that name one asset: its project's id and its own, from its key template. */
export const AssetRef = keyArgsOf(entities.Asset);
export type AssetRef = InstanceType<typeof AssetRef>;

export const AssetsArgs = argsType(
  'AssetsArgs',
  {
    projectId: attr.id({
      description:
        "A project's assets, oldest first (type, from and to do not apply). Without it, give type: the tenant's assets of that type.",
    }),
    type: attr.json<AssetType>()({
      apiType: 'AssetType',
      description: 'Across your projects: the ready assets of this type, newest first.',
    }),
    from: attr.json<Date>()({ apiType: 'DateTime', description: 'With type: created at or after this instant.' }),
    to: attr.json<Date>()({ apiType: 'DateTime', description: 'With type: created before this instant.' }),
  },
  PageArgs,
);
export type AssetsArgs = InstanceType<typeof AssetsArgs>;

export const RequestAssetUploadInput = inputType(
  'RequestAssetUploadInput',
  'The file you are about to upload: the upload URL binds its type and size.',
  {
    type: attr.json<AssetType>()({ required: true, apiType: 'AssetType', description: 'What kind of file it is.' }),
    ...uploadedFile({
      fileName: 'The original file name; the object key uses a sanitized copy.',
      contentType: 'The content type the upload will send, e.g. image/png. It is signed into the URL.',
      size: 'The exact size in bytes. It is signed into the URL and checked on confirm.',
    }),
    linkedLogId: attr.id({ ref: 'log', description: 'The log this asset documents, if any.' }),
    alt: entities.Asset.attributes.alt,
  },
);
export type RequestAssetUploadInput = InstanceType<typeof RequestAssetUploadInput>;

export const RequestAssetVersionInput = inputType(
  'RequestAssetVersionInput',
  'The file of the next version of an asset: the upload URL binds its type and size.',
  uploadedFile({ size: "The file's size in bytes: the upload must be exactly this long (at most UPLOAD_MAX_BYTES)." }),
);
export type RequestAssetVersionInput = InstanceType<typeof RequestAssetVersionInput>;

export const AssetUpload = uploadPayload({
  name: 'AssetUpload',
  description: 'A new asset in UPLOADING and where to PUT its file; confirmAssetUpload makes it READY.',
  fields: {
    asset: attr.json<Asset>()({ required: true, apiType: 'Asset', description: 'The new asset, in UPLOADING.' }),
    version: attr.int({ required: true, description: 'The version being uploaded.' }),
  },
});
export type AssetUpload = InstanceType<typeof AssetUpload>;

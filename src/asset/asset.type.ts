import { Node } from '../common/node.type';
import { ArgsType, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { entities, VERSION_STATES } from '../common/entities';
import { enumObject } from '../infra/dynamo/entity';
import { enumOf } from '../common/model-types';
import { Versioned } from '../common/versioned.type';
import { Connection, PageArgs } from '../common/pagination';
import { DateTime, JSONObject } from '../common/scalars';
import { UploadStatus, UploadTarget } from '../common/files/upload.type';

/** The kinds of asset and their GraphQL enum, from the declaration. */
export const AssetType = enumOf(entities.Asset, 'type', entities.Asset.attributes.type.values, 'AssetType', {
  image: 'A picture: a photo, a scan, a render.',
  audio: 'A sound file: a recording, a track.',
  document: 'A text or PDF document.',
  model: 'A 3D model.',
});
export type AssetType = (typeof AssetType)[keyof typeof AssetType];

/** Where a version stands: its upload's states, and archived once the tenant's retention let it go. */
export const AssetVersionStatus = enumObject(VERSION_STATES);
export type AssetVersionStatus = (typeof AssetVersionStatus)[keyof typeof AssetVersionStatus];
registerEnumType(AssetVersionStatus, {
  name: 'AssetVersionStatus',
  description:
    'uploading → ready → archived. ARCHIVED: past the tenant’s keepAssetVersions; still listed, its object moved to an archival storage class, no url unless asked with includeArchived.',
  valuesConfig: {
    UPLOADING: { description: 'Its upload URL is handed out; the file is not confirmed yet.' },
    READY: { description: 'Uploaded and confirmed: readable.' },
    ARCHIVED: { description: 'Let go by the tenant’s keepAssetVersions: url only with includeArchived.' },
  },
});

@ObjectType({ simpleResolvers: true, description: 'One version of an asset’s file, under its own object key.' })
export class AssetVersion {
  @Field(() => Int, { description: 'The version number, from 1.' })
  version!: number;

  @Field({ description: "The S3 object key of this version's file (never a URL)." })
  s3Key!: string;

  @Field(() => String, { nullable: true, description: 'The file name given at upload.' })
  fileName?: string;

  @Field(() => Int, { nullable: true, description: "The file's size in bytes." })
  size?: number;

  @Field(() => String, { nullable: true, description: "The file's media type." })
  contentType?: string;

  @Field(() => AssetVersionStatus, { description: 'UPLOADING, READY, or ARCHIVED once the tenant’s retention let it go.' })
  status!: AssetVersionStatus;

  @Field(() => DateTime, { description: 'When this version was requested.' })
  createdAt!: string;

  @Field(() => DateTime, { nullable: true, description: 'When its upload was confirmed; null while uploading.' })
  confirmedAt?: string;

  @Field(() => DateTime, { nullable: true, description: 'When retention archived it.' })
  archivedAt?: string;

  /** Epoch seconds after which an unconfirmed upload of this version is void. */
  uploadExpiresAt?: number;
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'A file of a project in S3. Only its object key is stored, never a URL.',
})
export class Asset extends Versioned {
  @Field(() => ID, { description: "The asset's id within its project (asset_…)." })
  assetId!: string;

  @Field(() => ID, { description: 'The project it belongs to.' })
  projectId!: string;

  @Field(() => AssetType, { description: 'What kind of file it is: image, audio, document or 3D model.' })
  type!: AssetType;

  @Field({
    description: 'The object key of the latest version (the one being uploaded while status is UPLOADING), under tenants/<tenantId>/.',
  })
  s3Key!: string;

  @Field(() => Int, { nullable: true, description: 'The latest confirmed version; null until the first upload is confirmed.' })
  latestVersion?: number | null;

  /** Every version, oldest first (pending uploads included). */
  versions?: AssetVersion[];

  @Field(() => UploadStatus, { description: 'UPLOADING until the upload is confirmed, then READY.' })
  status!: UploadStatus;

  @Field(() => Int, { nullable: true, description: 'Size in bytes.' })
  size?: number;

  @Field(() => String, { nullable: true, description: "The file's media type (image/png …), as confirmed from S3." })
  contentType?: string;

  @Field(() => JSONObject, { nullable: true, description: 'Image metadata.' })
  exif?: Record<string, unknown>;

  @Field(() => String, { nullable: true, description: 'Text recognized in the file.' })
  ocr?: string;

  @Field(() => String, { nullable: true, description: 'Accessibility description.' })
  alt?: string;

  @Field(() => ID, { nullable: true, description: 'The id of the log this asset documents, when linked.' })
  linkedLogId?: string;

  @Field(() => ID, { nullable: true, description: 'The job whose stage produced this asset (a stage whose outputs are assets).' })
  jobId?: string;

  @Field(() => JSONObject, { nullable: true, description: 'What the producing stage reported with it (its outputs).' })
  metadata?: Record<string, unknown>;
}

@ObjectType({ simpleResolvers: true, description: 'A page of assets, with the cursor to the next page.' })
export class AssetConnection extends Connection(Asset) {}

@InputType({ description: 'An asset whose file is already in S3 under your tenant (to upload one, use requestAssetUpload).' })
export class CreateAssetInput {
  @Field(() => AssetType, { description: 'What kind of file it is.' })
  type!: AssetType;

  @Field({ description: 'An object key under tenants/<tenantId>/; URLs and signed links are refused.' })
  s3Key!: string;

  @Field(() => Int, { nullable: true, description: "The file's size in bytes." })
  size?: number | null;

  @Field(() => String, { nullable: true, description: "The file's media type (image/png …)." })
  contentType?: string | null;

  @Field(() => JSONObject, { nullable: true, description: "The image's EXIF data, as JSON." })
  exif?: Record<string, unknown> | null;

  @Field(() => String, { nullable: true, description: 'Text recognized in the file.' })
  ocr?: string | null;

  @Field(() => String, { nullable: true, description: 'Alternative text for people who cannot see the image.' })
  alt?: string | null;

  @Field(() => ID, { nullable: true, description: 'A log of the same project.' })
  linkedLogId?: string | null;
}

@InputType({ description: 'Fields to change; an omitted field is kept, a null clears it.' })
export class UpdateAssetInput {
  @Field(() => JSONObject, { nullable: true, description: "The image's EXIF data, as JSON." })
  exif?: Record<string, unknown> | null;

  @Field(() => String, { nullable: true, description: 'Text recognized in the file.' })
  ocr?: string | null;

  @Field(() => String, { nullable: true, description: 'Alternative text for people who cannot see the image.' })
  alt?: string | null;

  @Field(() => ID, { nullable: true, description: 'Link to another log of the project, or null to unlink.' })
  linkedLogId?: string | null;
}

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

@ObjectType({
  simpleResolvers: true,
  description: 'A new asset in UPLOADING and where to PUT its file; confirmAssetUpload makes it READY.',
})
export class AssetUpload {
  @Field(() => Asset, { description: 'The new asset, in UPLOADING.' })
  asset!: Asset;

  @Field(() => Int, { description: 'The version being uploaded.' })
  version!: number;

  @Field(() => UploadTarget, { description: 'Where and how to send the file.' })
  upload!: UploadTarget;
}

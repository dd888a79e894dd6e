import { ArgsType, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Versioned } from '../common/versioned.type';
import { Connection, PageArgs } from '../common/pagination';
import { JSONObject } from '../common/scalars';

export enum AssetType {
  IMAGE = 'image',
  AUDIO = 'audio',
  DOCUMENT = 'document',
  MODEL = 'model',
}
registerEnumType(AssetType, { name: 'AssetType' });

export enum AssetStatus {
  UPLOADING = 'uploading',
  READY = 'ready',
}
registerEnumType(AssetStatus, { name: 'AssetStatus', description: 'uploading → ready' });

@ObjectType({ description: 'A file of a project in S3. Only its object key is stored, never a URL.' })
export class Asset extends Versioned {
  @Field(() => ID)
  assetId!: string;

  @Field(() => ID)
  projectId!: string;

  @Field(() => AssetType)
  type!: AssetType;

  @Field({ description: 'The S3 object key, under tenants/<tenantId>/.' })
  s3Key!: string;

  @Field(() => AssetStatus)
  status!: AssetStatus;

  @Field(() => Int, { nullable: true, description: 'Size in bytes.' })
  size?: number;

  @Field(() => String, { nullable: true })
  contentType?: string;

  @Field(() => JSONObject, { nullable: true, description: 'Image metadata.' })
  exif?: Record<string, unknown>;

  @Field(() => String, { nullable: true, description: 'Text recognized in the file.' })
  ocr?: string;

  @Field(() => String, { nullable: true, description: 'Accessibility description.' })
  alt?: string;

  @Field(() => ID, { nullable: true })
  linkedLogId?: string;

}

@ObjectType()
export class AssetConnection extends Connection(Asset) {}

@InputType()
export class CreateAssetInput {
  @Field(() => AssetType)
  type!: AssetType;

  @Field({ description: 'An object key under tenants/<tenantId>/; URLs and signed links are refused.' })
  s3Key!: string;

  @Field(() => Int, { nullable: true })
  size?: number | null;

  @Field(() => String, { nullable: true })
  contentType?: string | null;

  @Field(() => JSONObject, { nullable: true })
  exif?: Record<string, unknown> | null;

  @Field(() => String, { nullable: true })
  ocr?: string | null;

  @Field(() => String, { nullable: true })
  alt?: string | null;

  @Field(() => ID, { nullable: true, description: 'A log of the same project.' })
  linkedLogId?: string | null;
}

@InputType({ description: 'Fields to change; an omitted field is kept, a null clears it.' })
export class UpdateAssetInput {
  @Field(() => JSONObject, { nullable: true })
  exif?: Record<string, unknown> | null;

  @Field(() => String, { nullable: true })
  ocr?: string | null;

  @Field(() => String, { nullable: true })
  alt?: string | null;

  @Field(() => ID, { nullable: true, description: 'Link to another log of the project, or null to unlink.' })
  linkedLogId?: string | null;
}

@ArgsType()
export class AssetRef {
  @Field(() => ID)
  projectId!: string;

  @Field(() => ID)
  assetId!: string;
}

@ArgsType()
export class AssetsArgs extends PageArgs {
  @Field(() => ID)
  projectId!: string;
}

import { Node } from '../common/node.type';
import { ArgsType, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { entities } from '../common/entities';
import { enumOf } from '../common/model-types';
import { Versioned } from '../common/versioned.type';
import { Connection, PageArgs } from '../common/pagination';
import { UploadStatus, UploadTarget } from '../common/files/upload.type';

/** The kinds of inspiration and their GraphQL enum, from the declaration. */
export const InspirationType = enumOf(entities.Inspiration, 'type', entities.Inspiration.attributes.type.values, 'InspirationType');
export type InspirationType = (typeof InspirationType)[keyof typeof InspirationType];

@ObjectType({ simpleResolvers: true, implements: Node, description: 'Something that inspired the artist: a note, or a file in S3.' })
export class Inspiration extends Versioned {
  @Field(() => ID)
  inspirationId!: string;

  @Field(() => InspirationType)
  type!: InspirationType;

  @Field(() => String, { nullable: true })
  text?: string;

  @Field(() => String, { nullable: true, description: 'S3 object key, when the inspiration is a file.' })
  s3Key?: string;

  @Field(() => [String])
  tags!: string[];

  @Field(() => ID, { nullable: true })
  linkedProjectId?: string;

  @Field(() => UploadStatus, { nullable: true, description: 'For an uploaded file: UPLOADING until confirmed, then READY.' })
  fileStatus?: UploadStatus;

  @Field(() => Int, { nullable: true })
  size?: number;

  @Field(() => String, { nullable: true })
  contentType?: string;

  /** Epoch seconds after which an unconfirmed upload can no longer be confirmed. */
  uploadExpiresAt?: number;
}

@ObjectType({ simpleResolvers: true, description: 'A page of pieces of inspiration, with the cursor to the next page.' })
export class InspirationConnection extends Connection(Inspiration) {}

@InputType({ description: 'A new piece of inspiration: text, or a file already in S3 under your tenant.' })
export class CreateInspirationInput {
  @Field(() => InspirationType)
  type!: InspirationType;

  @Field(() => String, { nullable: true })
  text?: string | null;

  @Field(() => String, { nullable: true })
  s3Key?: string | null;

  @Field(() => [String], { nullable: true })
  tags?: string[] | null;

  @Field(() => ID, { nullable: true })
  linkedProjectId?: string | null;
}

@InputType({ description: 'Fields to change; an omitted field is kept, a null clears it.' })
export class UpdateInspirationInput {
  @Field(() => String, { nullable: true })
  text?: string | null;

  @Field(() => String, { nullable: true })
  s3Key?: string | null;

  @Field(() => [String], { nullable: true })
  tags?: string[] | null;

  @Field(() => ID, { nullable: true })
  linkedProjectId?: string | null;
}

@ArgsType()
export class InspirationsArgs extends PageArgs {
  @Field(() => String, { nullable: true, description: 'Only inspiration with this tag (case-insensitive).' })
  tag?: string | null;

  @Field(() => ID, { nullable: true, description: 'Only the inspiration linked to this project (not with tag).' })
  projectId?: string | null;
}

@InputType({ description: 'An inspiration file you are about to upload: the upload URL binds its type and size.' })
export class RequestInspirationUploadInput {
  @Field(() => InspirationType)
  type!: InspirationType;

  @Field()
  fileName!: string;

  @Field()
  contentType!: string;

  @Field(() => Int)
  size!: number;

  @Field(() => String, { nullable: true })
  text?: string | null;

  @Field(() => [String], { nullable: true })
  tags?: string[] | null;

  @Field(() => ID, { nullable: true })
  linkedProjectId?: string | null;
}

@ObjectType({ simpleResolvers: true, description: 'A new inspiration waiting for its file, and where to PUT it; confirmInspirationUpload finishes it.' })
export class InspirationUpload {
  @Field(() => Inspiration)
  inspiration!: Inspiration;

  @Field(() => UploadTarget)
  upload!: UploadTarget;
}

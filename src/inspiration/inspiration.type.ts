import { Node } from '../common/node.type';
import { ArgsType, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { entities } from '../common/entities';
import { enumOf } from '../common/model-types';
import { Versioned } from '../common/versioned.type';
import { Connection, PageArgs } from '../common/pagination';
import { UploadStatus, UploadTarget } from '../common/files/upload.type';

/** The kinds of inspiration and their GraphQL enum, from the declaration. */
export const InspirationType = enumOf(entities.Inspiration, 'type', entities.Inspiration.attributes.type.values, 'InspirationType', {
  text: 'Text only: a quote, a note, an idea.',
  image: 'An image file.',
  audio: 'An audio file.',
  file: 'Any other file.',
});
export type InspirationType = (typeof InspirationType)[keyof typeof InspirationType];

@ObjectType({ simpleResolvers: true, implements: Node, description: 'Something that inspired the artist: a note, or a file in S3.' })
export class Inspiration extends Versioned {
  @Field(() => ID, { description: "The inspiration's id (insp_…)." })
  inspirationId!: string;

  @Field(() => InspirationType, { description: 'Text, image, audio or file.' })
  type!: InspirationType;

  @Field(() => String, { nullable: true, description: 'The inspiration itself, for the TEXT type; a note otherwise.' })
  text?: string;

  @Field(() => String, { nullable: true, description: 'S3 object key, when the inspiration is a file.' })
  s3Key?: string;

  @Field(() => [String], { description: 'Tags to find it by.' })
  tags!: string[];

  @Field(() => ID, { nullable: true, description: 'The project it inspires, if any.' })
  linkedProjectId?: string;

  @Field(() => UploadStatus, { nullable: true, description: 'For an uploaded file: UPLOADING until confirmed, then READY.' })
  fileStatus?: UploadStatus;

  @Field(() => Int, { nullable: true, description: "Its file's size in bytes, when it has a file." })
  size?: number;

  @Field(() => String, { nullable: true, description: "Its file's media type, when it has a file." })
  contentType?: string;

  /** Epoch seconds after which an unconfirmed upload can no longer be confirmed. */
  uploadExpiresAt?: number;
}

@ObjectType({ simpleResolvers: true, description: 'A page of pieces of inspiration, with the cursor to the next page.' })
export class InspirationConnection extends Connection(Inspiration) {}

@InputType({ description: 'A new piece of inspiration: text, or a file already in S3 under your tenant.' })
export class CreateInspirationInput {
  @Field(() => InspirationType, { description: 'Text, image, audio or file.' })
  type!: InspirationType;

  @Field(() => String, { nullable: true, description: 'The inspiration itself, for the TEXT type; a note otherwise.' })
  text?: string | null;

  @Field(() => String, { nullable: true, description: 'The S3 key of its file, under tenants/<your tenant>/ (no URL).' })
  s3Key?: string | null;

  @Field(() => [String], { nullable: true, description: 'Tags to find it by (inspirations(tag:)).' })
  tags?: string[] | null;

  @Field(() => ID, { nullable: true, description: 'The project it inspires, if any.' })
  linkedProjectId?: string | null;
}

@InputType({ description: 'Fields to change; an omitted field is kept, a null clears it.' })
export class UpdateInspirationInput {
  @Field(() => String, { nullable: true, description: 'The text or note.' })
  text?: string | null;

  @Field(() => String, { nullable: true, description: 'The S3 key of its file, under tenants/<your tenant>/ (no URL).' })
  s3Key?: string | null;

  @Field(() => [String], { nullable: true, description: 'Tags to find it by (replaces the old ones).' })
  tags?: string[] | null;

  @Field(() => ID, { nullable: true, description: 'The project it inspires.' })
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
  @Field(() => InspirationType, { description: 'Image, audio or file.' })
  type!: InspirationType;

  @Field({ description: "The file's name; it ends the object key." })
  fileName!: string;

  @Field({ description: "The file's media type: the upload must send exactly this." })
  contentType!: string;

  @Field(() => Int, { description: "The file's size in bytes: the upload must be exactly this long." })
  size!: number;

  @Field(() => String, { nullable: true, description: 'A note about it.' })
  text?: string | null;

  @Field(() => [String], { nullable: true, description: 'Tags to find it by.' })
  tags?: string[] | null;

  @Field(() => ID, { nullable: true, description: 'The project it inspires, if any.' })
  linkedProjectId?: string | null;
}

@ObjectType({
  simpleResolvers: true,
  description: 'A new inspiration waiting for its file, and where to PUT it; confirmInspirationUpload finishes it.',
})
export class InspirationUpload {
  @Field(() => Inspiration, { description: 'The new inspiration, waiting for its file.' })
  inspiration!: Inspiration;

  @Field(() => UploadTarget, { description: 'Where and how to send the file.' })
  upload!: UploadTarget;
}

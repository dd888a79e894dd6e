import { ArgsType, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Connection, PageArgs } from '../common/pagination';
import { DateTime } from '../common/scalars';

export enum InspirationType {
  TEXT = 'text',
  IMAGE = 'image',
  AUDIO = 'audio',
  FILE = 'file',
}
registerEnumType(InspirationType, { name: 'InspirationType' });

@ObjectType({ description: 'Something that inspired the artist: a note, or a file in S3.' })
export class Inspiration {
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

  @Field(() => Int)
  version!: number;

  @Field(() => DateTime)
  createdAt!: string;

  @Field(() => DateTime)
  updatedAt!: string;
}

@ObjectType()
export class InspirationConnection extends Connection(Inspiration) {}

@InputType()
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
}

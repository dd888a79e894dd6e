import { Field, Int, ObjectType } from 'type-graphql';
import { DateTime } from './scalars';

/** The fields every versioned entity has; its types extend this. */
@ObjectType({ simpleResolvers: true })
export abstract class Versioned {
  @Field(() => Int, { description: 'Increments on every change; pass it as expectedVersion to update.' })
  version!: number;

  @Field(() => DateTime, { description: 'When it was created.' })
  createdAt!: string;

  @Field(() => DateTime, { description: 'When it last changed.' })
  updatedAt!: string;
}

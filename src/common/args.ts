import { Arg, FieldResolver, Int } from 'type-graphql';
import { attr } from '../infra/dynamo/entity';
import { Reads } from './projection';

/*
 * The wording of arguments many resolvers take, said once: a key, a change's expected version, and
 * a presigned download URL's field and how long it stays valid.
 */

/** How a key argument is described: whose id it is (`projectId`: "The project's id."). */
export const whose = (field: string) => `The ${field.replace(/Id$/, '')}'s id.`;

/** A key argument of an args type declared as attributes (see argsType): a required ID, described as whose id it is. */
export const keyAttr = (field: string) => attr.id({ required: true, description: whose(field) });

const VERSION_YOU_READ = 'The version you last read: if it has moved on since, CONFLICT names the current one.';

/** The `expectedVersion` argument of an update, which must name the version the client read. */
export const expectedVersionArg = { description: VERSION_YOU_READ };

/** The `expectedVersion` argument of a change that may go without one (a delete): given, it is checked as an update's is. */
export const optionalExpectedVersionArg = { nullable: true, description: VERSION_YOU_READ };

/**
 * A field resolver's `expiresIn` argument, of a presigned download URL: how many seconds the URL
 * stays valid, described as `description` says (the standard words when none is given).
 */
export function ExpiresIn(
  description = 'Seconds the URL stays valid: DOWNLOAD_URL_TTL_SECONDS when omitted, at most DOWNLOAD_URL_MAX_TTL_SECONDS.',
) {
  return Arg('expiresIn', () => Int, { nullable: true, description });
}

/**
 * A field resolver that gives a presigned download URL of its item's file, or null when there is
 * none to sign: a nullable String field described by `description`, which reads the attributes
 * `reads` names of its parent item (see Reads).
 */
export function PresignedUrl(description: string, ...reads: string[]): MethodDecorator {
  const field = FieldResolver(() => String, { nullable: true, description });
  const read = Reads(...reads);
  return (target, key, descriptor) => {
    read(target, key, descriptor);
    field(target, key, descriptor);
  };
}

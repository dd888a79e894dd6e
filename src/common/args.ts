/*
 * The wording of arguments many resolvers take, said once: a change's expected version, and how
 * long a download URL stays valid.
 */

const VERSION_YOU_READ = 'The version you last read: if it has moved on since, CONFLICT names the current one.';

/** The `expectedVersion` argument of an update, which must name the version the client read. */
export const expectedVersionArg = { description: VERSION_YOU_READ };

/** The `expectedVersion` argument of a change that may go without one (a delete): given, it is checked as an update's is. */
export const optionalExpectedVersionArg = { nullable: true, description: VERSION_YOU_READ };

/** The `expiresIn` argument of a presigned download URL. */
export const expiresInArg = {
  nullable: true,
  description: 'Seconds the URL stays valid: DOWNLOAD_URL_TTL_SECONDS when omitted, at most DOWNLOAD_URL_MAX_TTL_SECONDS.',
};

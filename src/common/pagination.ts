import { attr } from '../infra/dynamo/entity';
import { argsType } from './model-types';
import { keyAttr } from './args';

/*
 * The page arguments of every list (GraphQL Cursor Connections: `first`/`after` forward,
 * `last`/`before` backward), declared as attributes and made into args classes (model-types.ts),
 * and the page request a repository takes from them. The connection types are in connection.ts.
 */

/** The page arguments of a list that pages forward only (one merged from several queries). */
export const ForwardPageArgs = argsType('ForwardPageArgs', {
  first: attr.int({ description: 'Page size: 20 when omitted, at most 100.' }),
  after: attr.string({ description: 'The endCursor of the previous page, or any edge cursor: the items after it.' }),
});
export type ForwardPageArgs = InstanceType<typeof ForwardPageArgs>;

/**
 * The page arguments of a list read by one query, which pages both ways: `first`/`after`
 * forward, `last`/`before` backward (the same query read in reverse). Not both directions at once.
 */
export const PageArgs = argsType(
  'PageArgs',
  {
    last: attr.int({ description: 'Page backward: the last this many items, before `before` when given; at most 100.' }),
    before: attr.string({ description: 'The startCursor of a page, or any edge cursor: the items before it.' }),
  },
  ForwardPageArgs,
);
export type PageArgs = InstanceType<typeof PageArgs>;

/** The page arguments of a list of one project's items (its logs, jobs, brief versions, milestones …). */
export const ProjectPageArgs = argsType('ProjectPageArgs', { projectId: keyAttr('projectId') }, PageArgs);
export type ProjectPageArgs = InstanceType<typeof ProjectPageArgs>;

/**
 * The page request in a list's arguments, for the repository: the four page arguments only (a
 * forward-only list's arguments have no last or before).
 */
export function pageRequest({ first, after, last, before }: PageArgs): PageArgs {
  return { first, after, last, before };
}

import { Field, ID, InterfaceType } from 'type-graphql';

/**
 * An entity with a global id (Relay's Node interface): `node(id:)` refetches it, and client
 * caches (Apollo Client, urql, Relay) normalize it by `__typename` and `id` without any
 * configuration. Every item carries its type in `entityType`, which names its GraphQL type.
 */
@InterfaceType('Node', {
  description: 'An entity with a global id, unique across types: refetch it with node(id:).',
  resolveType: (value: { entityType?: string }) => value.entityType,
})
export abstract class Node {
  @Field(() => ID, { description: 'Unique across all types, stable, opaque: refetch with node(id:).' })
  id!: string;
}

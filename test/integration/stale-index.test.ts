import { BoundTenant } from '../../src/common/bound-tenant';
import { entities, entityNames, type EntityName } from '../../src/common/entities';
import { isCondition, membershipExample, membershipReads, placeholdersOf } from '../../src/infra/dynamo/entity';
import { keySchemas } from '../../src/infra/dynamo/table';
import { put } from '../../src/infra/dynamo/write';
import { searchChange, wordQuery } from '../../src/common/search';
import { freshTable, type TestTable } from '../support/dynamo';

/*
 * Generated from the declarations: for every entity, every attribute that composes one of its
 * index keys (or decides a sparse index) is changed the way the write path changes it (read the
 * stored item, change the attribute, put it through the model), and the item is then looked for
 * through every index it belongs to: found under the new key, no longer under the old one.
 */

const t = 'acme';
const numeric = (name: EntityName, attribute: string) => {
  const attributes: Record<string, { kind: string } | undefined> = entities[name].attributes;
  return ['int', 'float'].includes(attributes[attribute]?.kind ?? '') || ['position', 'seq', 'order', 'attempt'].includes(attribute);
};

/** An item of `name` with a value for every key and index placeholder, in every sparse index. */
function sample(name: EntityName): Record<string, unknown> {
  const model = entities[name];
  const templates = [model.key.shape.pk, model.key.shape.sk, ...Object.values(model.indexes).flatMap((i) => [i.pk, i.sk])];
  const item: Record<string, unknown> = {};
  for (const p of templates.flatMap(placeholdersOf)) item[p] = numeric(name, p) ? 3 : `${p}-1`;
  for (const index of Object.values(model.indexes)) Object.assign(item, membershipExample(index.when));
  // What only index keys name (the tenant, a derived shard) is no attribute of the item.
  return Object.fromEntries(Object.entries(item).filter(([a]) => a !== 'tenantId' && model.writable({ [a]: item[a] })));
}

/** The attributes whose change must move the item in an index: placeholders and sparse conditions, keys aside. */
function indexedAttributes(name: EntityName): string[] {
  const model = entities[name];
  const keyFields = new Set(model.keyFields);
  const names = Object.values(model.indexes).flatMap((i) => [
    ...[...placeholdersOf(i.pk), ...placeholdersOf(i.sk)].filter((p) => !(p in (i.derive ?? {}))),
    ...membershipReads(i.when),
  ]);
  return [...new Set(names)].filter((a) => a !== 'tenantId' && !keyFields.has(a));
}

describe('index keys follow every change of the attributes they are made of', () => {
  let table: TestTable;
  beforeAll(async () => {
    table = await freshTable();
  });

  /** Where the item is listed in each of its indexes now: index name → the item's key there, or absent. */
  async function placesOf(name: EntityName, item: Record<string, unknown>): Promise<Map<string, boolean>> {
    const model = entities[name];
    const found = new Map<string, boolean>();
    const attributes = model.indexAttributes(t, item);
    for (const [indexName, declared] of Object.entries(model.indexes)) {
      const { pk, sk } = keySchemas[declared.index];
      const key = model.key.keyFrom(t, item);
      // The partition the item's current attributes name; when it has none, the one it had to be in.
      const partition = attributes[pk];
      if (partition === undefined) continue;
      const items = await table.store.queryFirst({ index: declared.index, pk: partition, skBetween: [attributes[sk], attributes[sk]] }, 10);
      found.set(
        indexName,
        items.some((i) => i.PK === key.PK && i.SK === key.SK),
      );
    }
    return found;
  }

  const cases = entityNames.flatMap((name) => indexedAttributes(name).map((attribute) => [name, attribute] as const));

  it('covers every indexed attribute of every declared entity', () => {
    expect(cases.map(([n, a]) => `${n}.${a}`)).toEqual(
      expect.arrayContaining(['Project.status', 'Project.title', 'Project.archived', 'Log.attributionStatus', 'Job.status', 'Step.status']),
    );
  });

  it.each(cases)('%s: changing %s moves the item in its indexes and leaves nothing under the old key', async (name, attribute) => {
    const model = entities[name];
    const before = sample(name);
    await table.store.transact([put(model.itemChecked(t, before))]);
    const oldPlaces = model.indexAttributes(t, before);
    for (const [index, listed] of await placesOf(name, before)) expect({ index, listed }).toEqual({ index, listed: true });

    // The write path: read the stored item (with its index attributes), change the attribute, put it.
    const stored = await table.store.get(model.key.keyFrom(t, before));
    if (!stored) throw new Error('The item was not stored.');
    // A sparse index by attribute values, or one by a predicate that reads the attribute: a value it allows none of leaves it.
    const sparse = Object.values(model.indexes).find((i) =>
      isCondition(i.when) ? i.when.reads.includes(attribute) && attribute === 'status' : i.when?.[attribute],
    );
    const changed = sparse
      ? 'NOT-ALLOWED'
      : typeof stored[attribute] === 'number'
        ? stored[attribute] + 1
        : typeof stored[attribute] === 'boolean'
          ? !stored[attribute]
          : `${stored[attribute]}-changed`;
    const after = { ...stored, [attribute]: changed };
    await table.store.transact([put(model.itemChecked(t, after))]);

    // Nothing is left under the old index keys that the attribute composed...
    const newPlaces = model.indexAttributes(t, after);
    for (const [indexName, declared] of Object.entries(model.indexes)) {
      const { pk, sk } = keySchemas[declared.index];
      if (oldPlaces[pk] === newPlaces[pk] && oldPlaces[sk] === newPlaces[sk]) continue;
      const key = model.key.keyFrom(t, before);
      const old = await table.store.queryFirst({ index: declared.index, pk: oldPlaces[pk], skBetween: [oldPlaces[sk], oldPlaces[sk]] }, 10);
      expect({ indexName, stale: old.some((i) => i.PK === key.PK && i.SK === key.SK) }).toEqual({ indexName, stale: false });
    }
    // ...and the item is found under every key its new attributes give.
    for (const [index, listed] of await placesOf(name, after)) expect({ index, listed }).toEqual({ index, listed: true });
    if (sparse) expect(Object.keys(newPlaces)).not.toContain(keySchemas[sparse.index].pk);
  });

  // The word index of every searchable entity, from its declaration: the words of each searchable
  // attribute are replaced and then the entity deleted the way mutate.ts writes them, and no word
  // item is left that names a word the entity no longer has.
  const searchable = entityNames.filter((name) => entities[name].search);

  it('covers every searchable entity', () => {
    expect(searchable).toEqual(['Project', 'Log', 'Asset', 'Inspiration']);
  });

  it.each(searchable)('%s: its word items follow every change of its searchable text and go with it', async (name) => {
    const model = entities[name];
    const search = model.search;
    if (!search) throw new Error(`${name} declares no search.`);
    const attributes: Record<string, { kind: string } | undefined> = model.attributes;
    const text = (words: string) => (field: string) => [field, attributes[field]?.kind === 'strings' ? words.split(' ') : words];
    const subjectId = `${name.toLowerCase()}-1`;
    const base = { ...sample(name), [model.idField]: subjectId };
    const words = async (word: string) =>
      (await table.store.queryAll(wordQuery(new BoundTenant(t), word))).filter(
        (item) => item.PK === entities.SearchWord.key.pkOf(t, { subjectId }),
      );
    const write = async (before: Record<string, unknown> | null, after: Record<string, unknown> | null) => {
      const change = searchChange(new BoundTenant(t), model, before, after);
      const item = after ? { ...after, ...change.attributes } : null;
      await table.store.transact([...(item ? [put(model.itemChecked(t, item))] : [model.delete(t, base)]), ...change.writes]);
      return item;
    };

    const created = await write(null, { ...base, ...Object.fromEntries(search.fields.map(text('Alpha Beta'))) });
    expect((await words('alpha')).length).toBe(1);
    for (const field of search.fields) {
      // Each attribute in turn loses alpha and gains gamma; alpha stays while another attribute has it.
      const stored = await table.store.get(model.key.keyFrom(t, base));
      await write(stored, { ...stored, ...Object.fromEntries([text('Beta Gamma')(field)]) });
      const left = search.fields.slice(search.fields.indexOf(field) + 1).length;
      expect({ field, alpha: (await words('alpha')).length, gamma: (await words('gamma')).length }).toEqual({
        field,
        alpha: left > 0 ? 1 : 0,
        gamma: 1,
      });
    }
    expect(created).not.toBeNull();
    await write(await table.store.get(model.key.keyFrom(t, base)), null);
    for (const word of ['alpha', 'beta', 'gamma']) expect({ word, left: (await words(word)).length }).toEqual({ word, left: 0 });
    expect(await table.store.queryAll({ pk: entities.SearchWord.key.pkOf(t, { subjectId }) })).toEqual([]);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, getNamedType, isInterfaceType, isObjectType, parse, TypeInfo, visit, visitWithTypeInfo } from 'graphql';

/*
 * A normalized cache (urql's Graphcache, Relay, Apollo Client) keys an object by `__typename` and
 * `id` without configuration, and warns about or merges wrongly any object selected without it.
 * So every example operation selects `id` in every selection of a type that has one.
 */
describe('example operations', () => {
  const root = join(__dirname, '../..');
  const schema = buildSchema(readFileSync(join(root, 'schema.graphql'), 'utf8'));
  const folder = join(root, 'src/client/operations');

  it('select id on every object that has one', () => {
    const missing: string[] = [];
    let keyed = 0;
    for (const file of readdirSync(folder).filter((f) => f.endsWith('.graphql'))) {
      const info = new TypeInfo(schema);
      visit(
        parse(readFileSync(join(folder, file), 'utf8')),
        visitWithTypeInfo(info, {
          Field(field) {
            const type = getNamedType(info.getType());
            if (!field.selectionSet || !(isObjectType(type) || isInterfaceType(type)) || !type.getFields().id) return;
            keyed++;
            const selectsId = field.selectionSet.selections.some((s) => s.kind === 'Field' && s.name.value === 'id' && !s.alias);
            if (!selectsId) missing.push(`${file}: ${field.name.value} (${type.name})`);
          },
        }),
      );
    }
    expect(keyed).toBeGreaterThan(60);
    expect(missing).toEqual([]);
  });
});

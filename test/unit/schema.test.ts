import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getNamedType, GraphQLInt, isObjectType } from 'graphql';
import { PAGE_SIZE_ARGUMENTS } from '../../src/graphql/documents';
import { MAX_PAGE_SIZE } from '../../src/infra/dynamo/page';
import { buildAppSchema, printAppSchema } from '../../src/schema';

describe('schema.graphql', () => {
  it('matches the schema built from the code (run `npm run schema` when this fails)', () => {
    const committed = readFileSync(join(__dirname, '../../schema.graphql'), 'utf8');
    expect(committed).toBe(printAppSchema());
  });

  it('serves the seed query shape: logs(projectId) returns logs with logId, materials and timeSpentMinutes', () => {
    expect(printAppSchema()).toMatch(/logs\(\s*[^)]*projectId: ID!/);
  });

  // The documents part refuses a `first` or `last` written out of 1–MAX_PAGE_SIZE before it runs
  // (graphql/documents.ts): that holds only while every such argument is a page size.
  it('has `first` and `last` only as page sizes: Int arguments that say they take at most 100', () => {
    const schema = buildAppSchema();
    const found: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (!isObjectType(type)) continue;
      for (const field of Object.values(type.getFields()))
        for (const arg of field.args) {
          if (!PAGE_SIZE_ARGUMENTS.has(arg.name)) continue;
          found.push(`${type.name}.${field.name}(${arg.name})`);
          expect({ arg: `${type.name}.${field.name}(${arg.name})`, type: getNamedType(arg.type) }).toEqual({
            arg: `${type.name}.${field.name}(${arg.name})`,
            type: GraphQLInt,
          });
          expect(arg.description).toContain(`at most ${MAX_PAGE_SIZE}`);
        }
    }
    expect(found.length).toBeGreaterThan(20);
  });
});

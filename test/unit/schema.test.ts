import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { printAppSchema } from '../../src/schema';

describe('schema.graphql', () => {
  it('matches the schema built from the code (run `npm run schema` when this fails)', () => {
    const committed = readFileSync(join(__dirname, '../../schema.graphql'), 'utf8');
    expect(committed).toBe(printAppSchema());
  });

  it('serves the seed query shape: logs(projectId) returns logs with logId, materials and timeSpentMinutes', () => {
    expect(printAppSchema()).toMatch(/logs\(\s*[^)]*projectId: ID!/);
  });
});

import { BoundTenant } from '../../src/common/bound-tenant';
import { entities } from '../../src/common/entities';
import { checkFields, wholeNumber } from '../../src/common/fields';
import { newId } from '../../src/common/ids';
import { AppError, ErrorCode } from '../../src/errors';
import { attr } from '../../src/infra/dynamo/entity';

/*
 * Bounds declared on attributes (`max` characters of a text, `min`/`max` of a whole number) are
 * what checkFields applies to a client's value, so a repository (createJob's) states none itself.
 */
const tenant = new BoundTenant('bounds');

/** The BAD_USER_INPUT `run` throws, as { field, message }: the test fails when it throws anything else, or nothing. */
function refusal(run: () => unknown): { field: unknown; message: string } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
    return { field: error.extensions.field, message: error.message };
  }
  throw new Error('Nothing was refused.');
}

describe('declared bounds', () => {
  const { projectId, kind, priority, provider, seed, maxAttempts } = entities.Job.attributes;
  const job = { projectId, kind, priority, provider, seed };
  const create = (input: object) => checkFields(job, { projectId: newId('proj'), kind: 'k', ...input }, { mode: 'create', tenant });

  it("refuse a job's whole numbers and texts outside the Job's declared bounds, naming the field and the range", () => {
    expect(create({ priority: 9, provider: 'p'.repeat(100), seed: ' 7 ' })).toMatchObject({ priority: 9, seed: '7' });
    expect(create({ priority: 0 }).priority).toBe(0);
    expect(refusal(() => create({ priority: 10 }))).toEqual({ field: 'priority', message: 'priority must be a whole number from 0 to 9.' });
    expect(refusal(() => create({ priority: -1 }))).toEqual({ field: 'priority', message: 'priority must be a whole number from 0 to 9.' });
    expect(refusal(() => create({ provider: 'p'.repeat(101) }))).toMatchObject({ field: 'provider' });
    expect(refusal(() => create({ kind: 'k'.repeat(101) }))).toMatchObject({ field: 'kind' });
    expect(wholeNumber(maxAttempts, 10, 'maxAttempts')).toBe(10);
    for (const wrong of [0, 11, 2.5])
      expect(refusal(() => wholeNumber(maxAttempts, wrong, 'maxAttempts'))).toEqual({
        field: 'maxAttempts',
        message: 'maxAttempts must be a whole number from 1 to 10.',
      });
  });

  it('keep a whole number without a declared range at 0 or more, as before ranges could be declared', () => {
    const count = { count: attr.int() };
    expect(checkFields(count, { count: 0 }, { mode: 'create', tenant })).toEqual({ count: 0 });
    expect(refusal(() => checkFields(count, { count: -1 }, { mode: 'create', tenant }))).toEqual({
      field: 'count',
      message: 'count must be a whole number of at least 0.',
    });
  });

  it('refuse a declared number the table cannot store (a typed output such as sceneCount: 1e20), naming the field', () => {
    const fields = { sceneCount: attr.int(), ratio: attr.float() };
    const check = (values: object) => checkFields(fields, values, { mode: 'create', tenant, prefix: 'outputs.', typed: true });
    expect(check({ sceneCount: Number.MAX_SAFE_INTEGER, ratio: 1e-130 })).toEqual({ sceneCount: Number.MAX_SAFE_INTEGER, ratio: 1e-130 });
    expect(refusal(() => check({ sceneCount: 1e20 }))).toEqual({
      field: 'outputs.sceneCount',
      message: expect.stringContaining('outputs.sceneCount holds the number 100000000000000000000, which cannot be stored'),
    });
    expect(refusal(() => check({ ratio: 5e-324 }))).toMatchObject({ field: 'outputs.ratio' });
  });

  it('refuse a number the table cannot store inside a declared object, and a field name it refuses in a JSON one', () => {
    const { budget, customFields } = entities.Project.attributes;
    const project = (values: object) => checkFields({ budget, customFields }, values, { mode: 'create', tenant });
    expect(project({ budget: { amount: 1200.5, currency: 'EUR' } })).toMatchObject({ budget: { amount: 1200.5 } });
    for (const amount of [1e308, Number.MAX_SAFE_INTEGER + 2, 1e-200])
      expect(refusal(() => project({ budget: { amount, currency: 'USD' } }))).toEqual({
        field: 'budget',
        message: expect.stringContaining(`budget holds the number ${amount}, which cannot be stored`),
      });
    for (const key of ['', 'constructor', '__proto__'])
      expect(refusal(() => project({ customFields: JSON.parse(`{"a": {${JSON.stringify(key)}: 1}}`) }))).toEqual({
        field: 'customFields',
        message: `customFields holds a field named ${JSON.stringify(key)}, which cannot be stored: name it otherwise (an empty name, constructor and __proto__ are refused).`,
      });
  });
});

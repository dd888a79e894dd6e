import { BoundTenant } from '../../src/common/bound-tenant';
import { entities } from '../../src/common/entities';
import { limitsOf, quotaWrites, releasedOf, USAGE_RELEASE_SHARDS, withQuotaLimits } from '../../src/common/quota';
import { loadConfig, PLAN_DEFAULTS } from '../../src/config';
import type { AnyModel } from '../../src/infra/dynamo/entity';
import type { Write } from '../../src/infra/dynamo/write';

const tenant = new BoundTenant('t');

const condition = (w: Write) => {
  const request = w.toRequest('T');
  const part = request.Update ?? request.ConditionCheck;
  return { expression: part?.ConditionExpression, names: part?.ExpressionAttributeNames, values: part?.ExpressionAttributeValues };
};

describe('quota writes (pure: what a change adds to the tenant usage counter, and the limit put in at commit)', () => {
  const project = (archived: boolean) => ({ projectId: 'proj_1', title: 'P', archived });
  /** An item as a write stored it: with what it counted against its quota (QUOTA_COUNTED_ATTRIBUTE). */
  const stored = <T extends Record<string, unknown>>(model: AnyModel, item: T) => ({ ...item, quotaCounted: model.quota!.counts(item) });

  it('charges one project on create, frees it on archive and on delete, and writes nothing when the count is unchanged', () => {
    const [create] = quotaWrites(tenant, entities.Project, null, project(false));
    expect(create.toRequest('T').Update).toMatchObject({ Key: { PK: 'TENANT#t', SK: 'USAGE' }, UpdateExpression: 'ADD #n0 :v0' });
    expect(create.toRequest('T').Update?.ExpressionAttributeValues).toEqual({ ':v0': 1 });
    // Unlimited until the commit puts the plan in: a unit committed without the tenant's item still counts exactly.
    expect(create.conditional).toBe(false);
    // A release goes to one of the tenant's release shards, never to the counter, and is never limited.
    for (const after of [project(true), null]) {
      const [release] = quotaWrites(tenant, entities.Project, stored(entities.Project, project(false)), after);
      const update = release.toRequest('T').Update;
      expect(update?.Key?.PK).toMatch(new RegExp(`^TENANT#t#USAGE#[0-${USAGE_RELEASE_SHARDS - 1}]$`));
      expect(update).toMatchObject({ Key: { SK: 'USAGE' }, UpdateExpression: 'ADD #n0 :v0', ExpressionAttributeValues: { ':v0': -1 } });
      expect(release.conditional).toBe(false);
    }
    expect(quotaWrites(tenant, entities.Project, stored(entities.Project, project(false)), { ...project(false), title: 'Q' })).toEqual([]);
    expect(quotaWrites(tenant, entities.Milestone, null, { milestoneId: 'ms_1' })).toEqual([]);
  });

  it('conditions a charge on the limit minus the charge, and refuses one larger than the whole limit with a condition that cannot hold', () => {
    const limits = { ...PLAN_DEFAULTS.free, projects: 5 };
    const [charged] = withQuotaLimits(quotaWrites(tenant, entities.Project, null, project(false)), limits, {}) as Write[];
    expect(condition(charged)).toEqual({
      expression: '(attribute_not_exists(#n0) OR #n0 <= :v0)',
      names: { '#n0': 'projects', '#n1': 'projects' },
      values: { ':v0': 4, ':v1': 1 },
    });
    const error = charged.onConditionFailed?.({ PK: 'TENANT#t', SK: 'USAGE', projects: 5 });
    expect(error).toMatchObject({ extensions: { code: 'QUOTA_EXCEEDED', quota: 'projects', limit: 5, requested: 1 } });

    const asset = (status: 'uploading' | 'ready', size: number) => ({
      versions: [{ version: 1, s3Key: 'k', size, status, createdAt: '' }],
    });
    const [tooBig] = withQuotaLimits(
      quotaWrites(tenant, entities.Asset, null, asset('uploading', 2000)),
      { ...limits, storedBytes: 1000 },
      {},
    ) as Write[];
    // An upload requested is a check of the counter, not a charge; 2,000 bytes can never fit 1,000.
    expect(tooBig.toRequest('T').ConditionCheck).toBeDefined();
    expect(condition(tooBig).expression).toContain(' = ');
    const [confirmed] = withQuotaLimits(
      quotaWrites(tenant, entities.Asset, stored(entities.Asset, asset('uploading', 400)), asset('ready', 400)),
      { ...limits, storedBytes: 1000 },
      {},
    ) as Write[];
    expect(condition(confirmed).values).toEqual({ ':v0': 600, ':v1': 400 });
    // What the release shards freed (their counters, read at commit) is room on the counter: 2 projects freed of 5 leave 6 on it.
    const released = releasedOf([
      { PK: 'TENANT#t#USAGE#0', SK: 'USAGE', projects: -1 },
      null,
      { PK: 'TENANT#t#USAGE#5', SK: 'USAGE', projects: -1 },
    ]);
    expect(released).toMatchObject({ projects: -2, storedBytes: 0, runningJobs: 0 });
    const [roomy] = withQuotaLimits(quotaWrites(tenant, entities.Project, null, project(false)), limits, released) as Write[];
    expect(condition(roomy).values).toEqual({ ':v0': 6, ':v1': 1 });
  });

  it('counts in an item written before quotas were kept, holding only its growth to the limit', () => {
    const legacy = project(false);
    // Edited: it counts its one project in, and nothing of it is held to the limit (it had it already).
    const [edit] = withQuotaLimits(
      quotaWrites(tenant, entities.Project, legacy, { ...legacy, title: 'Q' }),
      { ...PLAN_DEFAULTS.free, projects: 0 },
      {},
    ) as Write[];
    expect(edit.toRequest('T').Update?.ExpressionAttributeValues).toEqual({ ':v0': 1 });
    expect(edit.conditional).toBe(false);
    // Deleted or archived: it had counted nothing, so nothing is taken off.
    expect(quotaWrites(tenant, entities.Project, legacy, null)).toEqual([]);
    expect(quotaWrites(tenant, entities.Project, legacy, project(true))).toEqual([]);
    // An uncounted 400-byte version confirmed with a new 300-byte one: 700 counted in, 300 of it growth.
    const asset = (sizes: number[]) => ({
      versions: sizes.map((size, i) => ({ version: i + 1, s3Key: 'k', size, status: 'ready', createdAt: '' })),
    });
    const [grown] = withQuotaLimits(
      quotaWrites(tenant, entities.Asset, asset([400]), asset([400, 300])),
      { ...PLAN_DEFAULTS.free, storedBytes: 1000 },
      {},
    ) as Write[];
    expect(condition(grown).values).toEqual({ ':v0': 700, ':v1': 700 });
    // The stored item records what it counted, derived like an index attribute.
    // Partial items (no status, no name): itemFrom, whose write values need no attribute but the key's.
    expect(entities.Project.itemFrom('t', legacy).quotaCounted).toBe(1);
    expect(entities.Project.itemFrom('t', project(true)).quotaCounted).toBe(0);
    expect(entities.Milestone.itemFrom('t', { projectId: 'proj_1', milestoneId: 'ms_1' })).not.toHaveProperty('quotaCounted');
  });

  it("takes a tenant's limits from its plan, with an admin's overrides on top, and PLAN_LIMITS over the defaults", () => {
    expect(limitsOf(undefined, null)).toEqual(PLAN_DEFAULTS.free);
    const at = '2026-01-01T00:00:00.000Z';
    const tenant = entities.Tenant.toItem('t', {
      tenantId: 't',
      name: 'T',
      plan: 'studio',
      limits: { projects: 7 },
      version: 1,
      createdAt: at,
      updatedAt: at,
      createdBy: 'admin',
    });
    expect(limitsOf(undefined, tenant)).toEqual({ ...PLAN_DEFAULTS.studio, projects: 7 });
    const config = loadConfig({ NODE_ENV: 'test', AUTH_JWT_SECRET: 's'.repeat(32), PLAN_LIMITS: '{"free":{"projects":50}}' });
    expect(config.plans.free).toEqual({ ...PLAN_DEFAULTS.free, projects: 50 });
    expect(() => loadConfig({ NODE_ENV: 'test', AUTH_JWT_SECRET: 's'.repeat(32), PLAN_LIMITS: '{"free":{"rooms":1}}' })).toThrow(
      /names no limit "rooms"/,
    );
  });
});

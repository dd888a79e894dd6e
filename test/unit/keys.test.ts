import { BoundTenant } from '../../src/common/bound-tenant';
import { briefKey, briefVersionLabel } from '../../src/brief/brief.keys';
import { entities, entityNames, projectChildren } from '../../src/common/entities';
import { assertId, isValidTenantId, newId } from '../../src/common/ids';
import { normalizeText } from '../../src/common/keys';
import { membershipExample, placeholdersOf } from '../../src/infra/dynamo/entity';
import { keySchemas } from '../../src/infra/dynamo/table';
import { logKey } from '../../src/log/log.keys';
import { projectChildren as projectChildQuery, projectsByStatus, projectsByTitle } from '../../src/project/project.keys';
import { ProjectStatus } from '../../src/project/project.type';

const t = 'acme';
const bound = new BoundTenant(t);

/** A value for every placeholder of `templates`, and for every `when` of the entity's indexes. */
function sampleItem(name: (typeof entityNames)[number]): Record<string, unknown> {
  const model = entities[name];
  const templates = [model.key.shape.pk, model.key.shape.sk, ...Object.values(model.indexes).flatMap((i) => [i.pk, i.sk])];
  const attributes: Record<string, { kind: string } | undefined> = model.attributes;
  const numeric = (p: string) =>
    ['int', 'float'].includes(attributes[p]?.kind ?? '') || ['position', 'seq', 'order', 'attempt'].includes(p);
  const item: Record<string, unknown> = Object.fromEntries(templates.flatMap(placeholdersOf).map((p) => [p, numeric(p) ? 7 : `v${p}`]));
  for (const index of Object.values(model.indexes)) Object.assign(item, membershipExample(index.when));
  return item;
}

describe('keys', () => {
  const p = newId('proj');

  it('puts every declared key under TENANT#<tenant>, in the partition and in every query prefix', () => {
    for (const name of entityNames) {
      const { key } = entities[name];
      const values = sampleItem(name);
      const built = key.keyFrom(t, values);
      expect([name, built.PK === 'TENANT#acme' || built.PK.startsWith('TENANT#acme#')]).toEqual([name, true]);
      const partition = Object.fromEntries(placeholdersOf(key.shape.pk).map((v) => [v, values[v]]));
      const prefix = entities[name].key.prefixOf(t, { ...partition } as never);
      expect(prefix.pk).toBe(built.PK);
      expect(built.SK.startsWith(prefix.skPrefix ?? '')).toBe(true);
    }
  });

  it("builds through a scope's bound tenant the keys, index attributes and items the model builds for that tenant, and no other", () => {
    const other = new BoundTenant('other');
    for (const name of entityNames) {
      const model = entities[name];
      const values = sampleItem(name);
      const keys = bound.of(model);
      expect({ name, key: keys.keyFrom(values) }).toEqual({ name, key: model.key.keyFrom(t, values) });
      expect({ name, attributes: keys.indexAttributes(values) }).toEqual({ name, attributes: model.indexAttributes(t, values) });
      // The sample also holds what only index keys name (the tenant, a derived shard): an item holds its own attributes.
      const own = Object.fromEntries(Object.entries(values).filter(([name]) => model.writable({ [name]: values[name] })));
      expect(keys.itemFrom(model.writeOf(own))).toEqual(model.itemChecked(t, own));
      expect(other.of(model).keyFrom(values).PK.startsWith('TENANT#other')).toBe(true);
    }
    expect(bound.partition).toBe('TENANT#acme');
    // S3 keys are checked against the bound tenant's prefix: another tenant's object is refused.
    expect(bound.objectKey('tenants/acme/a.png', 'mediaRefs')).toBe('tenants/acme/a.png');
    expect(() => bound.objectKey('tenants/other/a.png', 'mediaRefs')).toThrow(/tenant's prefix "tenants\/acme\/"/);
    expect(bound.objectPath('inspiration/i/a.png')).toBe('tenants/acme/inspiration/i/a.png');
  });

  it('writes only what an entity declares: an attribute it does not name is refused by name, its key, status and derived ones pass', () => {
    const milestone = { projectId: 'proj_1', milestoneId: 'ms_1', name: 'Sketch', status: 'pending', version: 1, searchSlots: [] };
    expect(entities.Milestone.writable(milestone)).toBe(true);
    expect(entities.Milestone.itemChecked(t, milestone)).toMatchObject({ entityType: 'Milestone', name: 'Sketch' });
    // A misspelt attribute is a programming error, not an attribute stored beside the declared ones.
    expect(() => entities.Milestone.itemChecked(t, { ...milestone, nmae: 'Sketch' })).toThrow('Milestone declares no attribute nmae.');
    // The status streams' events carry the job they belong to, which their declaration names.
    const statusEvent = { projectId: 'proj_1', position: 1, jobId: 'job_1', eventId: 'e', stream: 'projectJobs' };
    expect(entities.ProjectJobStatusEvent.writable(statusEvent)).toBe(true);
  });

  it('puts every index key of every entity under TENANT#<tenant>, except the one declared cross-tenant', () => {
    const crossTenant: string[] = [];
    let indexKeys = 0;
    for (const name of entityNames) {
      const model = entities[name];
      const attributes = model.indexAttributes(t, sampleItem(name));
      for (const [indexName, declared] of Object.entries(model.indexes)) {
        // An item that belongs in this index (memberships by predicate may exclude each other: a
        // work item is claimable or a dead letter, never both).
        const sample = { ...sampleItem(name), ...membershipExample(declared.when) };
        const pk = model.indexAttributes(t, sample)[keySchemas[declared.index].pk];
        expect({ name, indexName, pk: typeof pk }).toEqual({ name, indexName, pk: 'string' });
        indexKeys++;
        if (declared.crossTenant) crossTenant.push(`${name}.${indexName}`);
        else expect({ name, indexName, tenant: pk.startsWith('TENANT#acme#') }).toEqual({ name, indexName, tenant: true });
        // A query of the index names the same partition (of a write-sharded index, among its shards).
        const derived = Object.fromEntries(Object.entries(declared.derive ?? {}).map(([k, f]) => [k, f(sample)]));
        const query = model.query(t, indexName, { ...sample, ...derived });
        expect(query).toMatchObject({ index: declared.index });
        expect([query.pk, ...(query.shards ?? [])]).toContain(pk);
        expect(query.shards?.length ?? 0).toBe((declared.shards?.count ?? 1) - 1);
      }
      // The item carries no index attribute beyond its declared indexes.
      const declaredAttributes = Object.values(model.indexes).flatMap((i) => [keySchemas[i.index].pk, keySchemas[i.index].sk]);
      for (const attribute of Object.keys(attributes)) expect(declaredAttributes).toContain(attribute);
    }
    expect(indexKeys).toBeGreaterThanOrEqual(8);
    // Only the operators' views across tenants (admins only) and the settle sweep's work list (the
    // server's own, read by no request) are outside a tenant's partitions.
    // The pools' index (read only by the pool claimer, which hands work out under leases) too.
    expect(crossTenant).toEqual([
      'Project.acrossTenants',
      'Job.acrossTenants',
      'WorkItem.deadLettersAcrossTenants',
      'JobWork.pool',
      'JobSettle.pending',
    ]);
  });

  it('keeps an item out of a sparse index while its condition does not hold', () => {
    const paused = entities.Step.indexAttributes(t, { jobId: 'job_1', name: 'render', status: 'PAUSED', updatedAt: 'now' });
    expect(paused.GSI1PK).toBe('TENANT#acme#STEP_STATUS#PAUSED');
    expect(entities.Step.indexAttributes(t, { jobId: 'job_1', name: 'render', status: 'RUNNING', updatedAt: 'now' })).toEqual({});
  });

  it('derives the project children from the declarations, each read by one sort-key prefix', () => {
    const nested = entityNames.filter(
      (name) => entities[name].key.shape.pk === '' && entities[name].key.shape.sk.startsWith('PROJECT#{projectId}#'),
    );
    expect(projectChildren).toEqual(nested);
    expect(projectChildren).toEqual(expect.arrayContaining(['Brief', 'Milestone', 'Log', 'Asset']));
    for (const kind of projectChildren) {
      expect(projectChildQuery(bound, p, kind)).toEqual({
        pk: 'TENANT#acme',
        skPrefix: `PROJECT#${p}#${kind.toUpperCase()}#`,
        descending: false,
      });
    }
  });

  it('nests children under their project so one prefix reads one kind', () => {
    expect(logKey(bound, p, 'log_X').SK).toBe(`PROJECT#${p}#LOG#log_X`);
    expect(entities.Asset.keyOf(t, { projectId: p, assetId: 'asset_X' }).SK).toBe(`PROJECT#${p}#ASSET#asset_X`);
    expect(entities.Milestone.keyOf(t, { projectId: p, milestoneId: 'ms_X' }).SK).toBe(`PROJECT#${p}#MILESTONE#ms_X`);
  });

  it('zero-pads brief versions so v10 sorts after v9', () => {
    expect(briefVersionLabel(2)).toBe('v000002');
    const sorted = [1, 9, 10, 11, 100, 2].map((v) => briefKey(bound, p, v).SK).sort();
    expect(sorted.map((sk) => Number(sk.slice(-6)))).toEqual([1, 2, 9, 10, 11, 100]);
  });

  it('normalizes materials and tags so "Oil  Paint" and "oil paint" share one key, and keeps # out', () => {
    const use = (material: string) => entities.MaterialUse.keyOf(t, { material, logId: 'log_1' }).SK;
    expect(use('Oil  Paint ')).toBe(use('oil paint'));
    expect(normalizeText('a#b')).toBe('a b');
    // The #LOG# suffix keeps "oil" from matching "oil paint".
    expect(use('oil paint').startsWith('MATERIAL#oil#LOG#')).toBe(false);
  });

  it('lists projects by status and by title through the indexes, never the base partition', () => {
    expect(projectsByStatus(bound, ProjectStatus.PRODUCTION, false)).toMatchObject({
      index: 'GSI1',
      pk: 'TENANT#acme#PROJECT_STATUS#production',
    });
    expect(projectsByTitle(bound, ' The Sea', false)).toMatchObject({ index: 'GSI2', pk: 'TENANT#acme#TYPE#PROJECT', skPrefix: 'the sea' });
    expect(projectsByTitle(bound, undefined, true)).toEqual({ index: 'GSI2', pk: 'TENANT#acme#TYPE#ARCHIVED_PROJECT', descending: false });
  });

  it('accepts only ids the server hands out and tenant ids without separators', () => {
    const id = newId('proj');
    expect(assertId(id, 'proj', 'projectId')).toBe(id);
    expect(() => assertId('proj_x#LOG#y', 'proj', 'projectId')).toThrow(/projectId must be an id/);
    expect(() => assertId(newId('log'), 'proj', 'projectId')).toThrow(/proj_<ULID>/);
    expect(isValidTenantId('acme-1_b')).toBe(true);
    expect(isValidTenantId('acme#x')).toBe(false);
    expect(isValidTenantId('')).toBe(false);
    expect(isValidTenantId('x'.repeat(65))).toBe(false);
  });

  it('makes ids that sort by creation', () => {
    const ids = Array.from({ length: 50 }, () => newId('log'));
    expect([...ids].sort()).toEqual(ids);
  });
});

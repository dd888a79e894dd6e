import { briefKey, briefVersionLabel } from '../../src/brief/brief.keys';
import { assertId, isValidTenantId, newId } from '../../src/common/ids';
import { normalizeText } from '../../src/common/keys';
import { inspirationKey, inspirationTagKey } from '../../src/inspiration/inspiration.keys';
import { logKey, materialUseKey } from '../../src/log/log.keys';
import { milestoneKey } from '../../src/milestone/milestone.keys';
import { projectIndexKeys, projectKey, projectsByStatus, projectsByTitle } from '../../src/project/project.keys';
import { ProjectStatus } from '../../src/project/project.type';
import { assetKey } from '../../src/asset/asset.keys';
import { tenantKey } from '../../src/tenant/tenant.keys';
import { projectEventsPk, tenantEventsPk } from '../../src/activity/activity.keys';
import { entities, projectChildren, type EntityName } from '../../src/common/entities';
import { projectChildren as projectChildQuery } from '../../src/project/project.keys';

describe('keys', () => {
  const t = 'acme';
  const p = newId('proj');

  it('puts every entity key of a tenant under TENANT#<tenant>', () => {
    const keys = [
      tenantKey(t),
      projectKey(t, p),
      briefKey(t, p, 3),
      milestoneKey(t, p, newId('ms')),
      logKey(t, p, newId('log')),
      materialUseKey(t, 'Oil', newId('log')),
      assetKey(t, p, newId('asset')),
      inspirationKey(t, newId('insp')),
      inspirationTagKey(t, 'Blue', newId('insp')),
    ];
    for (const key of keys) expect(key.PK).toBe('TENANT#acme');
    expect(projectEventsPk(t, p)).toBe(`TENANT#acme#PROJECT#${p}#EVENTS`);
    expect(tenantEventsPk(t)).toBe('TENANT#acme#EVENTS');
    for (const index of Object.values(
      projectIndexKeys(t, { projectId: p, title: 'X', status: ProjectStatus.PLANNING, createdAt: 'now' }),
    )) {
      if (index.startsWith('TENANT#')) expect(index.startsWith('TENANT#acme#')).toBe(true);
    }
  });

  it('puts every declared key shape under TENANT#<tenant>, in the partition and in every query prefix', () => {
    for (const name of Object.keys(entities) as EntityName[]) {
      const { key } = entities[name];
      const valuesOf = (template: string) => Object.fromEntries([...template.matchAll(/\{(\w+)\}/g)].map((m) => [m[1], '7']));
      const values = { ...valuesOf(key.shape.pk), ...valuesOf(key.shape.sk) };
      const built = key.keyOf(t, values as never);
      expect([name, built.PK === 'TENANT#acme' || built.PK.startsWith('TENANT#acme#')]).toEqual([name, true]);
      expect(key.prefixOf(t, values as never).pk).toBe(built.PK);
      expect(built.SK.startsWith(key.prefixOf(t, valuesOf(key.shape.pk) as never).skPrefix!)).toBe(true);
    }
  });

  it('derives the project children from the declarations, each read by one sort-key prefix', () => {
    // Every entity whose items nest under a project's sort key in the tenant's partition, and only
    // those, whichever entities are declared.
    const nested = Object.entries(entities)
      .filter(([, e]) => e.key.shape.pk === '' && e.key.shape.sk.startsWith('PROJECT#{projectId}#'))
      .map(([name]) => name);
    expect(projectChildren).toEqual(nested);
    expect(projectChildren).toEqual(expect.arrayContaining(['Brief', 'Milestone', 'Log', 'Asset']));
    for (const kind of projectChildren) {
      expect(projectChildQuery(t, p, kind)).toEqual({
        pk: 'TENANT#acme',
        skPrefix: `PROJECT#${p}#${kind.toUpperCase()}#`,
        descending: false,
      });
    }
  });

  it('nests children under their project so one prefix reads one kind', () => {
    expect(logKey(t, p, 'log_X').SK).toBe(`PROJECT#${p}#LOG#log_X`);
    expect(assetKey(t, p, 'asset_X').SK).toBe(`PROJECT#${p}#ASSET#asset_X`);
    expect(milestoneKey(t, p, 'ms_X').SK).toBe(`PROJECT#${p}#MILESTONE#ms_X`);
  });

  it('zero-pads brief versions so v10 sorts after v9', () => {
    expect(briefVersionLabel(2)).toBe('v000002');
    const sorted = [1, 9, 10, 11, 100, 2].map((v) => briefKey(t, p, v).SK).sort();
    expect(sorted.map((sk) => Number(sk.slice(-6)))).toEqual([1, 2, 9, 10, 11, 100]);
  });

  it('normalizes materials and tags so "Oil  Paint" and "oil paint" share one key, and keeps # out', () => {
    expect(materialUseKey(t, 'Oil  Paint ', 'log_1').SK).toBe(materialUseKey(t, 'oil paint', 'log_1').SK);
    expect(normalizeText('a#b')).toBe('a b');
    // The #LOG# suffix keeps "oil" from matching "oil paint".
    expect(materialUseKey(t, 'oil paint', 'log_1').SK.startsWith('MATERIAL#oil#LOG#')).toBe(false);
  });

  it('lists projects by status and by title through the indexes, never the base partition', () => {
    expect(projectsByStatus(t, ProjectStatus.PRODUCTION, false)).toMatchObject({
      index: 'GSI1',
      pk: 'TENANT#acme#PROJECT_STATUS#production',
    });
    expect(projectsByTitle(t, ' The Sea', false)).toMatchObject({ index: 'GSI2', pk: 'TENANT#acme#TYPE#PROJECT', skPrefix: 'the sea' });
    expect(projectsByTitle(t, undefined, true).pk).toBe('TENANT#acme#TYPE#ARCHIVED_PROJECT');
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

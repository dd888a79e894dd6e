import type { StandardNames } from '../../src/common/feature';
import { features } from '../../src/features';
import type { AnyModel, Attribute } from '../../src/infra/dynamo/entity';

/** Every feature that is the standard API of a declared project child (see project-child.feature.ts). */
export const standardChildren: { model: AnyModel; names: StandardNames }[] = features.flatMap((f) => (f.standard ? [f.standard] : []));

/** A value of an attribute for a create input (GraphQL variables: an enum by its name). */
function sampleValue(attribute: Attribute, tenantId: string, mark: string): unknown {
  if (attribute.s3Key) return attribute.kind === 'strings' ? [`tenants/${tenantId}/sample.bin`] : `tenants/${tenantId}/sample.bin`;
  switch (attribute.kind) {
    case 'int':
      return 1;
    case 'float':
      return 1.5;
    case 'boolean':
      return true;
    case 'date':
      return '2026-01-01';
    case 'dateTime':
      return '2026-01-01T00:00:00.000Z';
    case 'json':
      return { mark };
    case 'strings':
      return [mark];
    case 'enum':
      return (attribute.values ?? [''])[0].toUpperCase();
    default:
      return `${mark} sample`;
  }
}

/**
 * A create input that a declaration accepts: every attribute a client may set, with a value of its
 * kind (texts carry `mark`, so a test can look for them where they must not be; S3 keys lie under
 * `tenantId`'s prefix).
 */
export function sampleInput(model: AnyModel, tenantId: string, mark: string): Record<string, unknown> {
  const attributes: Record<string, Attribute> = model.attributes;
  return Object.fromEntries(
    Object.entries(attributes)
      .filter(([, attribute]) => !attribute.internal)
      .map(([name, attribute]) => [name, sampleValue(attribute, tenantId, mark)]),
  );
}

/** The name of a declared index's partition values and the enum name of the first value, for list queries. */
export function listArguments(model: AnyModel, list: string): Record<string, unknown> {
  const [, declared] = Object.entries(model.indexes).find(([, i]) => i.list === list) ?? [];
  if (!declared) throw new Error(`${model.type} has no list ${list}.`);
  const attributes: Record<string, Attribute> = model.attributes;
  const values: Record<string, unknown> = {};
  for (const [, name] of declared.pk.matchAll(/\{(\w+)\}/g)) {
    const enumValues = name === model.status?.attribute ? model.states : attributes[name]?.values;
    values[name] = enumValues ? enumValues[0].toUpperCase() : 'x';
  }
  return values;
}

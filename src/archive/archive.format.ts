import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { type AttributeValues, attr } from '../infra/dynamo/entity';
import type { Item } from '../infra/dynamo/store';
import { keyedItem } from '../infra/dynamo/write';

/*
 * The cold-storage format: one gzip JSON Lines object per archived job or project (one stored
 * row a line, exactly as the table held it, keys included, in key order), and beside it a small
 * JSON manifest naming it with its SHA-256, its size and its row counts. The manifest is written
 * last: its presence says the data object is whole, and it is what a later run checks before
 * exporting again. Pure functions only; reading and writing are in archive.service.ts.
 */

export const ARCHIVE_FORMAT = 'artissist.archive.v1';

/** What is archived: a job (with its steps, items and events) or a project (with its children). */
export const ARCHIVE_KINDS = ['job', 'project'] as const;

/**
 * A manifest's fields, declared once: the ArchiveManifest type, parseManifest's checks and the
 * API's ArchivedJob (its checksum, size and row count) are read from it.
 */
export const ARCHIVE_MANIFEST = {
  format: attr.json<typeof ARCHIVE_FORMAT>()({ required: true }),
  kind: attr.enum(ARCHIVE_KINDS)({ required: true }),
  tenantId: attr.id({ required: true }),
  id: attr.id({ required: true, description: "The job's or project's id." }),
  data: attr.string({ required: true, description: "The data object's name under the tenant's cold-storage prefix." }),
  sha256: attr.string({ required: true, description: "SHA-256 of the data object's bytes (the gzip), hex." }),
  bytes: attr.int({ required: true, description: "The data object's size (gzip), in bytes." }),
  rawBytes: attr.int({ required: true, description: "The JSON Lines' size before compression, in bytes." }),
  rows: attr.int({ required: true, description: 'Table rows the data object holds.' }),
  rowsByType: attr.json<Record<string, number>>()({ required: true, description: 'Rows by entity type (Job, Step, WorkItem, Event, …).' }),
  version: attr.int({
    required: true,
    description: "The job's or project's version when it was exported: removal holds only while it is still that.",
  }),
  exportedAt: attr.dateTime({ required: true }),
} as const;

export type ArchiveManifest = AttributeValues<typeof ARCHIVE_MANIFEST>;
export type ArchiveKind = ArchiveManifest['kind'];

/**
 * The names of a job's or project's objects under the tenant's cold-storage prefix, the same on
 * every run: its data, its manifest, and (a project put back by restoreProject) the mark that says
 * which version was restored.
 */
export function archiveNames(kind: ArchiveKind, id: string): { data: string; manifest: string; restored: string } {
  const base = `${kind === 'job' ? 'jobs' : 'projects'}/${id}`;
  return { data: `${base}.jsonl.gz`, manifest: `${base}.manifest.json`, restored: `${base}.restored.json` };
}

/** The version a restore mark names; undefined for anything else. */
export function restoredVersion(bytes: Uint8Array): number | undefined {
  const raw: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
  return typeof raw === 'object' && raw !== null && 'version' in raw && typeof raw.version === 'number' ? raw.version : undefined;
}

/** The data object of `rows` and the manifest's description of it. */
export function encodeRows(rows: readonly Item[]): { body: Buffer; sha256: string; rawBytes: number; rowsByType: Record<string, number> } {
  const text = rows.map((row) => `${JSON.stringify(row)}\n`).join('');
  const body = gzipSync(Buffer.from(text, 'utf8'));
  const rowsByType: Record<string, number> = {};
  for (const row of rows) {
    const type = typeof row.entityType === 'string' ? row.entityType : 'unknown';
    rowsByType[type] = (rowsByType[type] ?? 0) + 1;
  }
  return { body, sha256: sha256Of(body), rawBytes: Buffer.byteLength(text), rowsByType };
}

export const sha256Of = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * The rows of a data object, after checking it against its manifest. Throws when the bytes are
 * not the ones the manifest names (a damaged or replaced object): nothing is read from it then.
 */
export function decodeRows(body: Uint8Array, manifest: Pick<ArchiveManifest, 'sha256' | 'rows'>): Item[] {
  if (sha256Of(body) !== manifest.sha256) throw new Error('The archived object does not match its manifest’s checksum.');
  const rows: Item[] = gunzipSync(body)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    // Each row is checked to have its table key: a row without one could not be restored.
    .map((line) => keyedItem(JSON.parse(line)));
  if (rows.length !== manifest.rows) throw new Error(`The archived object holds ${rows.length} rows; its manifest says ${manifest.rows}.`);
  return rows;
}

/** A manifest read back, checked field by field; throws for anything else. */
export function parseManifest(bytes: Uint8Array): ArchiveManifest {
  const raw: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
  if (typeof raw !== 'object' || raw === null) throw new Error('An archive manifest is not an object.');
  const m: Record<string, unknown> = { ...raw };
  // Each field is checked against its declared kind: texts, counts, and the kinds the format knows.
  const wrong = Object.entries(ARCHIVE_MANIFEST).some(([name, { kind }]) =>
    kind === 'int' ? typeof m[name] !== 'number' : kind !== 'json' && typeof m[name] !== 'string',
  );
  if (m.format !== ARCHIVE_FORMAT || wrong) throw new Error('An archive manifest is not of the format this server reads.');
  const kind = ARCHIVE_KINDS.find((known) => known === m.kind);
  if (!kind) throw new Error('An archive manifest names no kind this server reads.');
  const rowsByType: Record<string, number> = {};
  if (typeof m.rowsByType === 'object' && m.rowsByType !== null)
    for (const [type, count] of Object.entries(m.rowsByType)) if (typeof count === 'number') rowsByType[type] = count;
  return {
    format: ARCHIVE_FORMAT,
    kind,
    tenantId: String(m.tenantId),
    id: String(m.id),
    data: String(m.data),
    sha256: String(m.sha256),
    bytes: Number(m.bytes),
    rawBytes: Number(m.rawBytes),
    rows: Number(m.rows),
    rowsByType,
    version: Number(m.version),
    exportedAt: String(m.exportedAt),
  };
}

import { entities } from '../common/entities';
import { assertId } from '../common/ids';
import type { Scope } from '../common/scope';
import { conflict, notFound } from '../errors';
import type { Item } from '../infra/dynamo/store';
import { KEY_ATTRIBUTES } from '../infra/dynamo/table';
import { put } from '../infra/dynamo/write';
import { type ArchiveKind, type ArchiveManifest, archiveNames, decodeRows, parseManifest } from './archive.format';

/** Rows per restoring transaction (DynamoDB's limit). */
const TX_ROWS = 100;

/** A stored row as the API shows it: its attributes without the table's key and index attributes. */
function withoutKeys(row: Item): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).filter(([name]) => !KEY_ATTRIBUTES.has(name)));
}

/**
 * Cold storage as one tenant sees it: its archived jobs read back, its archived projects
 * restored. Every object name is under the caller's tenant prefix (FilesService.coldKey), so no
 * argument can reach another tenant's archive.
 */
export class ArchiveRepository {
  constructor(private readonly scope: Scope) {}

  /** The manifest and rows of one archived job or project of this tenant, checked against its checksum; null when none. */
  private async read(kind: ArchiveKind, id: string): Promise<{ manifest: ArchiveManifest; rows: Item[] } | null> {
    const names = archiveNames(kind, id);
    const found = await this.scope.files.readCold(names.manifest);
    if (!found) return null;
    const manifest = parseManifest(found.body);
    const data = await this.scope.files.readCold(manifest.data);
    if (!data) throw new Error(`The archive of ${kind} ${id} has a manifest but no data object.`);
    return { manifest, rows: decodeRows(data.body, manifest) };
  }

  /** A job of this tenant as it was archived: the job, its steps, items and events; null when it is not in cold storage. */
  async job(jobId: string) {
    assertId(jobId, 'job', 'jobId');
    const archived = await this.read('job', jobId);
    if (!archived) return null;
    const { manifest, rows } = archived;
    const job = rows.find((row) => entities.Job.is(row));
    if (!job) throw new Error(`The archive of job ${jobId} holds no job.`);
    const of = (type: string) => rows.filter((row) => row.entityType === type).map(withoutKeys);
    return {
      jobId,
      archivedAt: manifest.exportedAt,
      sha256: manifest.sha256,
      bytes: manifest.bytes,
      rows: manifest.rows,
      job: withoutKeys(job),
      steps: of(entities.Step.type),
      items: of(entities.WorkItem.type),
      events: of(entities.JobEvent.type),
    };
  }

  /**
   * Puts an archived project of this tenant back in the table, every row as it was exported (the
   * project itself last, so it shows only once all its children are back), having marked its
   * archive restored so that the schedule does not move it out again until it changes (then it is
   * exported anew over the same names). NOT_FOUND when it
   * is not in cold storage; CONFLICT when the project is in the table already.
   */
  async restoreProject(projectId: string) {
    assertId(projectId, 'proj', 'projectId');
    const archived = await this.read('project', projectId);
    if (!archived) throw notFound('ArchivedProject', projectId);
    const key = this.scope.tenant.of(entities.Project).keyOf({ projectId });
    const current = await this.scope.store.get(key);
    if (current) throw conflict('Project', projectId, archived.manifest.version, entities.Project.found(current)?.version);
    // Every row must be this tenant's: the archive was written under its prefix, and is checked again here.
    const own = this.scope.tenant.partition;
    if (archived.rows.some((row) => row.PK !== own && !row.PK.startsWith(`${own}#`)))
      throw new Error(`The archive of project ${projectId} holds rows of another tenant.`);
    const project = archived.rows.find((row) => row.PK === key.PK && row.SK === key.SK);
    if (!project) throw new Error(`The archive of project ${projectId} holds no project.`);
    // Marked first: from now on the schedule leaves this version of the project in the table, so
    // a crash during the puts below leaves nothing it would remove again (a second restore finishes them).
    await this.scope.files.writeCold(
      archiveNames('project', projectId).restored,
      Buffer.from(JSON.stringify({ version: archived.manifest.version })),
      {
        contentType: 'application/json',
      },
    );
    const children = archived.rows.filter((row) => row !== project);
    for (let i = 0; i < children.length; i += TX_ROWS) {
      await this.scope.store.transact(children.slice(i, i + TX_ROWS).map((row) => put(row)));
    }
    // The project last, and only if no other restore put it back meanwhile.
    await this.scope.store.transact([
      put(project).ifNew(() => conflict('Project', projectId, archived.manifest.version, archived.manifest.version)),
    ]);
    return entities.Project.found(project);
  }
}

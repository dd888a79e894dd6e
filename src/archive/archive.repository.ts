import { activityEvent, subjectOf } from '../common/activity-event';
import { entities } from '../common/entities';
import { assertId } from '../common/ids';
import type { Scope } from '../common/scope';
import { AppError, ErrorCode, notFound } from '../errors';
import { RESTORED_ATTRIBUTE } from '../infra/dynamo/downstream';
import type { Item } from '../infra/dynamo/store';
import { KEY_ATTRIBUTES, keySchemas } from '../infra/dynamo/table';
import { OUTBOX_ENTRY, put } from '../infra/dynamo/write';
import { type ArchiveKind, type ArchiveManifest, archiveNames, decodeRows, parseManifest } from './archive.format';

/** Rows per restoring transaction (DynamoDB's limit). */
const TX_ROWS = 100;

/** A stored row as the API shows it: its attributes without the table's key and index attributes. */
function withoutKeys(row: Item): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).filter(([name]) => !KEY_ATTRIBUTES.has(name)));
}

/** Restoring a project that is in the table: nothing to restore (CONFLICT, naming what is there). */
const alreadyThere = (projectId: string, current: number | undefined) =>
  new AppError(
    ErrorCode.CONFLICT,
    `Project ${projectId} is in the table${current === undefined ? '' : ` (at version ${current})`}: only a project the archive moved to cold storage can be restored.`,
    { entity: 'Project', id: projectId, currentVersion: current ?? null },
  );

/**
 * A row of an archive as restoreProject writes it back. Its event items are old events written
 * again, so they are marked (RESTORED_ATTRIBUTE) and the downstream filter does not send them a
 * second time; no row goes back into the outbox (its index attributes and a unit's outbox entry,
 * which an event not yet published when it was exported could carry, are left out), so no old
 * event is published to subscribers again either. Null for a row not to write.
 */
function restoredRow(row: Item, at: string): Item | null {
  if (row.entityType === OUTBOX_ENTRY) return null;
  const { [keySchemas.OUTBOX.pk]: _pk, [keySchemas.OUTBOX.sk]: _sk, ...rest } = row;
  const kept: Item = { ...rest, PK: row.PK, SK: row.SK };
  return kept.entityType === entities.ProjectEvent.type ? { ...kept, [RESTORED_ATTRIBUTE]: at } : kept;
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
   * exported anew over the same names). Its old events come back marked as restored (see
   * restoredRow), so they do not go downstream again; its streams' heads come back with them, and
   * the restore itself is one new event, `project.restored`, at the next position of its activity
   * (committed with the project). NOT_FOUND when it is not in cold storage; CONFLICT when the
   * project is in the table already.
   */
  async restoreProject(projectId: string) {
    assertId(projectId, 'proj', 'projectId');
    const archived = await this.read('project', projectId);
    if (!archived) throw notFound('ArchivedProject', projectId);
    const key = this.scope.tenant.of(entities.Project).keyOf({ projectId });
    const current = await this.scope.store.get(key);
    if (current) throw alreadyThere(projectId, entities.Project.found(current)?.version);
    // Every row must be this tenant's: the archive was written under its prefix, and is checked again here.
    const own = this.scope.tenant.partition;
    if (archived.rows.some((row) => row.PK !== own && !row.PK.startsWith(`${own}#`)))
      throw new Error(`The archive of project ${projectId} holds rows of another tenant.`);
    const project = entities.Project.found(archived.rows.find((row) => row.PK === key.PK && row.SK === key.SK));
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
    const at = this.scope.now().toISOString();
    const children = archived.rows.filter((row) => row !== project).flatMap((row) => restoredRow(row, at) ?? []);
    for (let i = 0; i < children.length; i += TX_ROWS) {
      await this.scope.store.transact(children.slice(i, i + TX_ROWS).map((row) => put(row)));
    }
    // The project last, and only if no other restore put it back meanwhile, with the one new event
    // of the restore: its activity head is back, so the event takes the position after the last
    // archived one.
    await this.scope.commit([
      put(project).ifNew((now) => alreadyThere(projectId, entities.Project.found(now)?.version)),
      activityEvent(this.scope, {
        action: 'project.restored',
        subject: subjectOf(entities.Project, project),
        data: { version: project.version },
      }),
    ]);
    return project;
  }
}

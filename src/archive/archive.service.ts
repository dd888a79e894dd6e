import { SYSTEM_TENANT } from '../auth/principal';
import { entities } from '../common/entities';
import type { ArchiveRunResult } from '../common/feature';
import { FilesService } from '../common/files/files.service';
import { searchableModels } from '../common/search';
import type { Config } from '../config';
import { tenantOfPk } from '../infra/dynamo/entity';
import type { Item, Store } from '../infra/dynamo/store';
import { del, type Write } from '../infra/dynamo/write';
import type { FileStore } from '../infra/s3/files';
import { jobOwnerOf, opsJobsByStatus } from '../job/job.keys';
import { JobStatus, TERMINAL } from '../job/job.machine';
import { logger } from '../logger';
import {
  type ArchiveKind,
  type ArchiveManifest,
  ARCHIVE_FORMAT,
  archiveNames,
  encodeRows,
  parseManifest,
  restoredVersion,
} from './archive.format';

/*
 * Cold storage (issue 34, part 2). A run moves finished jobs older than the retention, and
 * projects archived longer than it, out of the table: each is exported as one gzip JSON Lines
 * object with its manifest under the tenant's cold-storage prefix, then removed.
 *
 * Crash safety rests on two things. The objects' names are fixed by what they hold (the tenant,
 * the kind and the id), and the manifest is written after the data: so a run that finds the
 * manifest of the version the table still holds knows the export is whole, writes nothing, and
 * only removes. And removal comes last and is conditioned on the version exported: a job retried
 * or a project changed meanwhile stays, and is exported again (over the same names) later. A crash
 * at any point leaves the item in the table, whole or with part of its rows removed after a
 * complete export; nothing is lost and nothing is written twice.
 */

/** Rows per removal transaction (DynamoDB's limit). */
const TX_ROWS = 100;
/** Candidates read per status in one run, the latest change before the cutoff first, across the index's shards; the next run takes the rest. */
const CANDIDATES = 800;
/** The most rows one job's or project's export holds (a 10,000-item stage is about 30,000 rows). */
const MAX_ROWS = 100_000;

export interface ArchiverOptions {
  /** Finished jobs, and projects archived, this many days ago or more go to cold storage. */
  afterDays: number;
  /** The run's clock; the wall clock when omitted (tests move it). */
  now?: () => Date;
  fileLimits: Config['files'];
  /**
   * Called after a manifest is written and before the removal starts. Tests inject a crash here
   * (a throw), which real parts cannot produce at that exact point; the server passes none.
   */
  afterExport?: (manifest: ArchiveManifest) => void | Promise<void>;
}

/** One job or project to move: whose, which, and the rows and version to export. */
interface Subject {
  kind: ArchiveKind;
  tenantId: string;
  id: string;
  version: number;
  /** Every row to export; `head` is the job's or project's own item, removed last. */
  rows: Item[];
  head: Item;
}

const emptyResult = (): ArchiveRunResult => ({ jobs: 0, projects: 0, resumed: 0, rows: 0, bytes: 0, failed: 0 });

/** What a run goes through, in order: the finished jobs, then the archived projects. */
export type ArchivePhase = 'jobs' | 'projects';

/** Where a run stands (its system job item's checkpoint): the next holder goes on from it. */
export interface ArchiveCheckpoint {
  /** Finished jobs and archived projects last changed before this time are the run's. */
  cutoff: string;
  /** The phase of the last job or project it settled. */
  phase: ArchivePhase;
  /** What it did so far. */
  result: ArchiveRunResult;
}

export interface ArchiveRunOptions {
  /** Where an earlier holder of this run left it. */
  from?: ArchiveCheckpoint;
  /** Called after each job or project with the share of the run done (0 to 1) and where it stands. */
  report?: (progress: number, checkpoint: ArchiveCheckpoint) => Promise<void>;
  /** Ends the run between two jobs or projects (the run rejects with the signal's reason). */
  signal?: AbortSignal;
}

export class Archiver {
  constructor(
    private readonly store: Store,
    private readonly fileStore: FileStore | undefined,
    private readonly options: ArchiverOptions,
  ) {}

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** The cold storage of one tenant (its objects under `archive/tenants/<t>/`). */
  private coldOf(tenantId: string): FilesService {
    return new FilesService(this.fileStore, tenantId, this.options.fileLimits);
  }

  /**
   * One run: every finished job and archived project past the retention, each exported and then
   * removed. A failure of one is logged, counted and left for the next run (its rows stay); the
   * run goes on with the others. Throws only when the candidates cannot be read, or (with the
   * signal's reason) when `signal` aborts it between two of them.
   *
   * `from` is where an earlier holder of the same run left it (its last `report`): the run keeps
   * its cutoff and counts, and skips the jobs when it had reached the projects. `report` is called
   * after each job or project with the share done and where the run stands; a throw from it (the
   * run was taken over) ends the run with that throw.
   */
  async run(options: ArchiveRunOptions = {}): Promise<ArchiveRunResult> {
    const from = options.from;
    const cutoff = from?.cutoff ?? new Date(this.now().getTime() - this.options.afterDays * 86_400_000).toISOString();
    const result = { ...(from?.result ?? emptyResult()) };
    const jobs = from?.phase === 'projects' ? [] : await this.oldJobs(cutoff);
    const projects = await this.oldArchivedProjects(cutoff);
    const total = jobs.length + projects.length;
    let done = 0;
    const step = async (phase: ArchivePhase) => {
      done++;
      await options.report?.(total === 0 ? 1 : done / total, { cutoff, phase, result: { ...result } });
    };
    for (const { tenantId, jobId } of jobs) {
      options.signal?.throwIfAborted();
      await this.settle(result, 'job', jobId, () => this.jobSubject(tenantId, jobId));
      await step('jobs');
    }
    for (const { tenantId, projectId } of projects) {
      options.signal?.throwIfAborted();
      await this.settle(result, 'project', projectId, () => this.projectSubject(tenantId, projectId));
      await step('projects');
    }
    return result;
  }

  private async settle(result: ArchiveRunResult, kind: ArchiveKind, id: string, read: () => Promise<Subject | null>) {
    try {
      const subject = await read();
      if (!subject) return;
      const moved = await this.move(subject);
      if (!moved) return;
      result[kind === 'job' ? 'jobs' : 'projects']++;
      if (moved.resumed) result.resumed++;
      result.rows += moved.rows;
      result.bytes += moved.bytes;
    } catch (error) {
      result.failed++;
      logger.warn({ err: error, kind, id }, 'could not move to cold storage; it stays in the table and the next run tries again');
    }
  }

  /** Finished jobs whose last change is older than `cutoff`, across tenants, from the operations index. */
  private async oldJobs(cutoff: string): Promise<{ tenantId: string; jobId: string }[]> {
    const found: { tenantId: string; jobId: string }[] = [];
    for (const status of [JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED]) {
      for (const item of await this.store.queryFirst(opsJobsByStatus(status, cutoff), CANDIDATES)) {
        const owner = jobOwnerOf(item);
        // The server's own jobs (migrations, these runs) are no tenant's: they have no tenant's
        // cold-storage prefix, and leave by their TTL (FINISHED_JOB_TTL_DAYS).
        if (owner && owner.tenantId !== SYSTEM_TENANT) found.push(owner);
      }
    }
    return found;
  }

  /** Projects archived, and unchanged since, before `cutoff`, across tenants. */
  private async oldArchivedProjects(cutoff: string): Promise<{ tenantId: string; projectId: string }[]> {
    const found: { tenantId: string; projectId: string }[] = [];
    for (const status of ['planning', 'production', 'complete']) {
      const spec = entities.Project.query('', 'acrossTenants', { archived: true, status }, { descending: true, range: { below: cutoff } });
      for (const item of await this.store.queryFirst(spec, CANDIDATES)) {
        if (!entities.Project.is(item) || !item.archived) continue;
        found.push({ tenantId: tenantOfPk(item.PK), projectId: item.projectId });
      }
    }
    return found;
  }

  /** A finished job's partition (the job, its steps, items and events), or null when it is gone, not finished or still settling. */
  private async jobSubject(tenantId: string, jobId: string): Promise<Subject | null> {
    const pk = entities.Job.key.pkOf(tenantId, { jobId });
    const rows = await this.store.queryAll({ pk }, MAX_ROWS);
    const head = rows.find((row) => entities.Job.is(row));
    if (!entities.Job.is(head) || !TERMINAL.has(head.status)) return null;
    // A job whose items are still being settled (or whose deletion is under way) waits for the sweep.
    if (rows.some((row) => entities.JobSettle.is(row))) return null;
    return { kind: 'job', tenantId, id: jobId, version: head.version, rows, head };
  }

  /**
   * An archived project and everything that belongs to it: its children (briefs, milestones, logs,
   * assets, …), the material uses of its logs, the word index of it and its searchable children
   * (their SearchWord partitions: the search would otherwise keep finding what is gone), and its
   * activity and job status streams.
   */
  private async projectSubject(tenantId: string, projectId: string): Promise<Subject | null> {
    const key = entities.Project.keyOf(tenantId, { projectId });
    const own = await this.store.queryAll({ pk: key.PK, skPrefix: key.SK }, MAX_ROWS);
    // The prefix also matches a longer id that begins with this one; only the project and its `#` children are its own.
    const rows = own.filter((row) => row.SK === key.SK || row.SK.startsWith(`${key.SK}#`));
    const head = rows.find((row) => row.SK === key.SK);
    if (!entities.Project.is(head) || !head.archived) return null;
    const materialKeys = rows.flatMap((row) =>
      entities.Log.is(row)
        ? (row.materials ?? []).map((material) => entities.MaterialUse.keyOf(tenantId, { material, logId: row.logId }))
        : [],
    );
    const materials = (await this.store.batchGet(materialKeys)).filter((row) => row !== null);
    const wordPartitions = rows.flatMap((row) => {
      const model = typeof row.entityType === 'string' ? searchableModels.get(row.entityType) : undefined;
      const subjectId = model ? row[model.idField] : undefined;
      return typeof subjectId === 'string' ? [entities.SearchWord.key.pkOf(tenantId, { subjectId })] : [];
    });
    const partitions = await Promise.all(
      [
        ...wordPartitions,
        entities.ProjectEvent.key.pkOf(tenantId, { projectId }),
        entities.ProjectJobStatusHead.key.pkOf(tenantId, { projectId }),
      ].map((pk) => this.store.queryAll({ pk }, MAX_ROWS)),
    );
    return { kind: 'project', tenantId, id: projectId, version: head.version, rows: [...rows, ...materials, ...partitions.flat()], head };
  }

  /**
   * Exports `subject` unless its manifest for this version is there already, then removes its
   * rows, its own item last and only while it is still at the version exported. Null when it
   * changed meanwhile (it stays; the next run exports it again).
   */
  private async move(subject: Subject): Promise<{ resumed: boolean; rows: number; bytes: number } | null> {
    const cold = this.coldOf(subject.tenantId);
    const names = archiveNames(subject.kind, subject.id);
    if (subject.kind === 'project') {
      // A project restored on purpose stays until it changes.
      const mark = await cold.readCold(names.restored);
      if (mark && restoredVersion(mark.body) === subject.version) return null;
    }
    const found = await cold.readCold(names.manifest);
    let manifest = found ? parseManifest(found.body) : null;
    const resumed = manifest !== null && manifest.version === subject.version;
    if (!manifest || !resumed) {
      const encoded = encodeRows(subject.rows);
      // Stored as what it is, a gzip file, without Content-Encoding: with it, an HTTP client that
      // decompresses as it reads (fetch, curl --compressed, a browser) got JSON Lines whose bytes
      // do not match the manifest's checksum of the gzip.
      await cold.writeCold(names.data, encoded.body, { contentType: 'application/gzip', metadata: { sha256: encoded.sha256 } });
      manifest = {
        format: ARCHIVE_FORMAT,
        kind: subject.kind,
        tenantId: subject.tenantId,
        id: subject.id,
        data: names.data,
        sha256: encoded.sha256,
        bytes: encoded.body.byteLength,
        rawBytes: encoded.rawBytes,
        rows: subject.rows.length,
        rowsByType: encoded.rowsByType,
        version: subject.version,
        exportedAt: this.now().toISOString(),
      };
      // Written last: its presence says the data object above is whole.
      await cold.writeCold(names.manifest, Buffer.from(JSON.stringify(manifest, null, 2)), { contentType: 'application/json' });
    }
    await this.options.afterExport?.(manifest);
    const removed = await this.remove(subject);
    return removed ? { resumed, rows: subject.rows.length, bytes: resumed ? 0 : manifest.bytes } : null;
  }

  /** Deletes the subject's rows, its own item last on condition of its version; false when it changed. */
  private async remove(subject: Subject): Promise<boolean> {
    const others = subject.rows.filter((row) => row.PK !== subject.head.PK || row.SK !== subject.head.SK);
    const changed = () => new Changed();
    const last: Write = del({ PK: subject.head.PK, SK: subject.head.SK }).ifVersion(subject.version, changed);
    // Most jobs fit in one transaction with their own item: then they leave at once for every reader.
    const firstOthers = others.length <= TX_ROWS - 1 ? others : [];
    const rest = others.length <= TX_ROWS - 1 ? [] : others;
    for (let i = 0; i < rest.length; i += TX_ROWS) {
      await this.store.transact(rest.slice(i, i + TX_ROWS).map((row) => del({ PK: row.PK, SK: row.SK })));
    }
    try {
      await this.store.transact([last, ...firstOthers.map((row) => del({ PK: row.PK, SK: row.SK }))]);
      return true;
    } catch (error) {
      if (error instanceof Changed) return false;
      throw error;
    }
  }
}

/** The job or project moved on after it was read for export: it stays in the table. */
class Changed extends Error {
  constructor() {
    super('changed since it was exported');
  }
}

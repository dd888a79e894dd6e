import type { App } from '../app';
import { DEV_TENANT } from '../app';
import { Role } from '../auth/principal';
import type { Config } from '../config';
import { AppError, ErrorCode } from '../errors';
import { AttributionStatus } from '../log/log.type';
import { entities } from '../common/entities';
import type { IdPrefix } from '../common/entities';

const MilestoneStatus = { IN_PROGRESS: 'in_progress', COMPLETE: 'complete' } as const;
type MilestoneStatus = (typeof MilestoneStatus)[keyof typeof MilestoneStatus];
import { ProjectStatus } from '../project/project.type';
import { createContext } from '../wiring';
import { DEMO_INSPIRATION, DEMO_JOBS, DEMO_PROJECTS, demoId, demoSvg } from './demo.data';

export interface DemoIds {
  projectId: string;
  jobIds: string[];
}

const PROJECT_PATH: Record<string, ProjectStatus[]> = {
  planning: [],
  production: [ProjectStatus.PRODUCTION],
  complete: [ProjectStatus.PRODUCTION, ProjectStatus.COMPLETE],
};
const MILESTONE_PATH: Record<string, MilestoneStatus[]> = {
  pending: [],
  in_progress: [MilestoneStatus.IN_PROGRESS],
  complete: [MilestoneStatus.IN_PROGRESS, MilestoneStatus.COMPLETE],
};

/** Moves along `path` from wherever the entity is now; steps already taken are skipped. */
async function walk<S extends string>(current: S, path: S[], step: (to: S) => Promise<unknown>) {
  for (const to of path.slice(path.indexOf(current) + 1)) await step(to);
}

/**
 * Loads the demo tenant (`demo`, the development token's tenant): projects in each status,
 * briefs with several versions, milestones, logs with materials and minutes, assets with files
 * in S3, inspiration, and jobs of the three seed kinds. Every entity has a fixed id and is only
 * made when missing, so loading twice duplicates nothing.
 */
export async function loadDemo(app: App, config: Config): Promise<DemoIds> {
  let nextId: string | undefined;
  const ctx = createContext(
    {
      store: app.store,
      outbox: app.outbox,
      bus: app.bus,
      fileStore: app.files,
      fileLimits: config.files,
      eventRetentionDays: config.eventRetentionDays,
      newId: (prefix) => {
        if (!nextId?.startsWith(`${prefix}_`)) throw new AppError(ErrorCode.INTERNAL, `The demo loader expected an id for ${prefix}.`);
        const id = nextId;
        nextId = undefined;
        return id;
      },
    },
    { userId: 'demo-loader', tenantId: DEV_TENANT, roles: [Role.ADMIN] },
  );
  const { repos } = ctx;
  /** Makes the entity `<prefix>_…<n>` with `make` unless `exists` finds it; returns its id. */
  const once = async (prefix: IdPrefix, n: number, exists: (id: string) => Promise<unknown>, make: () => Promise<unknown>) => {
    const id = demoId(prefix, n);
    if (await exists(id)) return id;
    nextId = id;
    await make();
    return id;
  };

  await repos.tenant.getOrCreate();
  for (const p of DEMO_PROJECTS) {
    const projectId = await once(
      'proj',
      p.n,
      (id) => repos.projects.get(id),
      () => repos.projects.create({ title: p.title, medium: p.medium, client: p.client, deadline: p.deadline, budget: p.budget }),
    );
    const project = (await repos.projects.get(projectId))!;
    await walk(project.status, PROJECT_PATH[p.status], (to) => repos.projects.setStatus(projectId, to));
    for (let v = ((await repos.briefs.latest(projectId))?.version ?? 0) + 1; v <= p.briefs; v++) {
      await repos.briefs.createVersion(projectId, {
        requirements: [`Scale ${v === 1 ? '60×90 cm' : '80×120 cm'}`, 'Warm evening light'],
        deliverables: ['Final piece', 'High-resolution scan'],
        changelogEntry: v === 1 ? 'First brief' : `Revision ${v}: client feedback`,
      });
    }
    for (const m of p.milestones) {
      const milestones = repos.children.of(entities.Milestone);
      const id = await once(
        'ms',
        m.n,
        (id) => milestones.get(projectId, id),
        () => milestones.create(projectId, { name: m.name, due: m.due, criteria: m.criteria }),
      );
      const milestone = (await milestones.get(projectId, id))!;
      await walk(milestone.status, MILESTONE_PATH[m.status], (to) => milestones.setStatus(projectId, id, to));
    }
    for (const l of p.logs) {
      await once(
        'log',
        l.n,
        (id) => repos.logs.get(projectId, id),
        async () => {
          await repos.logs.create(projectId, {
            rawText: l.rawText,
            materials: l.materials,
            timeSpentMinutes: l.timeSpentMinutes,
            tags: ['studio'],
          });
          if (l.confirm) await repos.logs.setAttribution(projectId, demoId('log', l.n), AttributionStatus.CONFIRMED);
        },
      );
    }
    for (const a of p.assets) {
      const id = demoId('asset', a.n);
      const existing = await repos.assets.get(projectId, id);
      if (existing?.status === 'ready') continue;
      const body = Buffer.from(demoSvg(a.alt));
      if (!existing) {
        nextId = id;
        await repos.assets.requestUpload(projectId, {
          type: 'image',
          fileName: a.fileName,
          contentType: 'image/svg+xml',
          size: body.length,
          alt: a.alt,
          linkedLogId: demoId('log', a.log),
        });
      }
      // The upload goes through a presigned URL, as a browser's would.
      const target = await repos.files.uploadTarget((await repos.assets.get(projectId, id))!.s3Key, 'image/svg+xml', body.length);
      const res = await fetch(target.url, { method: 'PUT', body, headers: { 'Content-Type': 'image/svg+xml' } });
      if (!res.ok) throw new Error(`Demo upload failed with HTTP ${res.status}.`);
      await repos.assets.confirmUpload(projectId, id);
    }
  }
  for (const i of DEMO_INSPIRATION) {
    const linkedProjectId = i.project ? demoId('proj', i.project) : undefined;
    await once(
      'insp',
      i.n,
      (id) => repos.inspirations.get(id),
      () => repos.inspirations.create({ type: 'text', text: i.text, tags: i.tags, linkedProjectId }),
    );
  }
  const jobIds: string[] = [];
  for (const j of DEMO_JOBS) {
    const projectId = demoId('proj', j.project);
    const create = { projectId, kind: j.kind, steps: j.steps, inputs: j.inputs, idempotencyKey: j.key };
    jobIds.push(
      await once(
        'job',
        j.n,
        (id) => repos.jobs.get(id),
        () => repos.jobs.create(create),
      ),
    );
  }
  return { projectId: demoId('proj', 1), jobIds };
}

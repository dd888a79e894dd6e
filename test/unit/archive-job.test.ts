import { archiveCheckpointOf, archiveResultOf, archiveStartDecision } from '../../src/archive/archive.jobs';
import { JOB_KINDS } from '../../src/job/job.kinds';
import { JobStatus } from '../../src/job/job.machine';

/*
 * The pure parts of the archive's system job (src/archive/archive.jobs.ts): when a starter joins
 * the last run, starts one or skips the period, and how a run's counts and checkpoint are read
 * back from what its item stored.
 */

const HOUR = 3_600_000;
const at = (iso: string) => new Date(iso);

describe("the archive's start decision", () => {
  const last = (status: JobStatus, createdAt = '2026-11-26T10:10:00.000Z') => ({ status, createdAt });

  it('joins a run that has not finished, whoever asks', () => {
    for (const status of [JobStatus.QUEUED, JobStatus.RUNNING, JobStatus.PAUSED]) {
      for (const trigger of ['schedule', 'operator'] as const) {
        expect(archiveStartDecision({ trigger, last: last(status), now: at('2026-11-26T15:00:00Z'), intervalMs: HOUR })).toBe('join');
      }
    }
  });

  it('lets the schedule start one run per period: none when the last was made in this period, one when it was made in an earlier one', () => {
    const now = at('2026-11-26T10:59:59.999Z');
    for (const status of [JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED]) {
      expect(archiveStartDecision({ trigger: 'schedule', last: last(status), now, intervalMs: HOUR })).toBe('skip');
      expect(archiveStartDecision({ trigger: 'schedule', last: last(status), now: at('2026-11-26T11:00:00Z'), intervalMs: HOUR })).toBe(
        'start',
      );
    }
    // A last run stamped ahead of this instance's clock (clock skew) is this period's too.
    expect(
      archiveStartDecision({ trigger: 'schedule', last: last(JobStatus.COMPLETED, '2026-11-26T12:00:00Z'), now, intervalMs: HOUR }),
    ).toBe('skip');
    expect(archiveStartDecision({ trigger: 'schedule', last: null, now, intervalMs: HOUR })).toBe('start');
  });

  it("starts a new run on an operator's command whenever none runs", () => {
    const now = at('2026-11-26T10:30:00Z');
    expect(archiveStartDecision({ trigger: 'operator', last: last(JobStatus.COMPLETED), now, intervalMs: HOUR })).toBe('start');
    expect(archiveStartDecision({ trigger: 'operator', last: undefined, now, intervalMs: 0 })).toBe('start');
  });
});

describe("the archive run's stored counts and checkpoint", () => {
  const result = { jobs: 2, projects: 1, resumed: 1, rows: 30, bytes: 4096, failed: 0 };

  it('reads back what a run stored, and nothing partial or malformed', () => {
    expect(archiveResultOf({ ...result, extra: 'ignored' })).toEqual(result);
    expect(archiveResultOf({ ...result, bytes: undefined })).toBeUndefined();
    expect(archiveResultOf({ ...result, rows: -1 })).toBeUndefined();
    expect(archiveResultOf({ ...result, jobs: 1.5 })).toBeUndefined();
    expect(archiveResultOf(null)).toBeUndefined();

    const checkpoint = { cutoff: '2026-08-28T10:00:00.000Z', phase: 'projects', result };
    expect(archiveCheckpointOf(checkpoint)).toEqual(checkpoint);
    expect(archiveCheckpointOf(undefined)).toBeUndefined();
    expect(archiveCheckpointOf({ ...checkpoint, phase: 'assets' })).toBeUndefined();
    expect(archiveCheckpointOf({ ...checkpoint, cutoff: 'yesterday' })).toBeUndefined();
    expect(archiveCheckpointOf({ ...checkpoint, result: { jobs: 1 } })).toBeUndefined();
  });

  it('declares the run as a system kind whose one stage gives exactly these counts as outputs', () => {
    const kind = JOB_KINDS.ARCHIVE;
    expect(kind.system).toBe(true);
    expect(kind.stages.map((s) => s.name)).toEqual(['move']);
    expect(Object.keys(kind.stages[0].fanOut?.outputs ?? {}).sort()).toEqual(Object.keys(result).sort());
  });
});

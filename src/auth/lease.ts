import { CursorCodec } from '../infra/cursor';
import { forbidden } from '../errors';
import { isRecord } from '../guards';

/**
 * Leases of pool workers. A pool worker is bound to no tenant; each claim hands it a lease naming
 * exactly what it may report on: the tenant, the job, the stage and item, the attempt, and the
 * worker. The lease is sealed by the server (encrypted and authenticated, as cursors are, with a
 * key of its own), so a pool worker can neither read nor forge one, and every report it makes is
 * authorised by the lease alone: the tenant of the report is the lease's, never an argument.
 */
export interface Lease {
  tenantId: string;
  jobId: string;
  stage: string;
  sequence: number;
  attempt: number;
  /** The pool worker the lease was handed to (its token's sub). */
  worker: string;
}

/** A lease checked by LeaseCodec.open: only it may bind a pool worker's request to a tenant. */
export type OpenedLease = Lease & { readonly opened: true };

const AUDIENCE = 'pool';
const PURPOSE = 'lease';

export class LeaseCodec {
  private readonly codec: CursorCodec;

  constructor(secret: string) {
    this.codec = new CursorCodec(`lease:${secret}`);
  }

  /** Seals `lease` for the worker it names. */
  seal(lease: Lease): Promise<string> {
    return this.codec.encode(AUDIENCE, PURPOSE, { ...lease });
  }

  /**
   * Opens a lease sealed by `seal` and checks that it was handed to `worker`. Throws FORBIDDEN when
   * it is malformed, was not made by this server, or belongs to another worker.
   */
  async open(sealed: string, worker: string): Promise<OpenedLease> {
    let raw: Record<string, unknown>;
    try {
      raw = await this.codec.decode(sealed, AUDIENCE, PURPOSE, 'lease');
    } catch {
      throw forbidden('The lease is not valid: pass the lease claimWork handed you, unchanged.');
    }
    const { tenantId, jobId, stage, sequence, attempt } = raw;
    if (
      !isRecord(raw) ||
      typeof tenantId !== 'string' ||
      typeof jobId !== 'string' ||
      typeof stage !== 'string' ||
      typeof sequence !== 'number' ||
      typeof attempt !== 'number' ||
      raw.worker !== worker
    ) {
      throw forbidden('The lease is not valid for this worker: pass the lease claimWork handed you, unchanged.');
    }
    return { tenantId, jobId, stage, sequence, attempt, worker, opened: true };
  }
}

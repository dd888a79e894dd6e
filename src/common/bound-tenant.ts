import { type AnyModel, TenantModel, tenantPk } from '../infra/dynamo/entity';
import { tenantS3Prefix, validateS3Key } from './s3-key';
import {
  type PositionedStream,
  type ProjectActivityEvent,
  type ProjectJobStatusEvent,
  streams,
  type TenantJobStatusEvent,
} from './streams';

/**
 * The caller's tenant as a request's code reaches it (Scope.tenant): bound once, where the scope is
 * made from the verified token or from a pool worker's lease (src/wiring.ts), and never from a
 * client's argument. Everything that puts the tenant into a key, an object key or a stream goes
 * through it, so domain code names entities and values, never a tenant.
 */
export class BoundTenant {
  constructor(
    /**
     * The tenant's id, for where it is data rather than part of a key: an event's `tenantId`, a
     * topic's name, the binding of a cursor. Keys come from `of`.
     */
    readonly id: string,
  ) {}

  /** The tenant's own partition key, `TENANT#<id>`: the start of every key of this tenant. */
  get partition(): string {
    return tenantPk(this.id);
  }

  /** `model`'s keys, queries and writes in this tenant (every key begins with `TENANT#<id>`). */
  of<M extends AnyModel>(model: M): TenantModel<M> {
    return new TenantModel(model, this.id);
  }

  /** `key` when it is a valid S3 object key under this tenant's prefix; BAD_USER_INPUT naming `field` and the rule otherwise. */
  objectKey(key: string, field: string): string {
    return validateS3Key(key, this.id, field);
  }

  /** The object key of `path` under this tenant's prefix: `tenants/<id>/<path>`. */
  objectPath(path: string): string {
    return `${tenantS3Prefix(this.id)}${path}`;
  }

  /** The activity stream of one of this tenant's projects (see streams.ts). */
  projectActivity(projectId: string): PositionedStream<ProjectActivityEvent> {
    return streams.projectActivity(this.id, projectId);
  }

  /** The job status changes of one of this tenant's projects. */
  projectJobStatus(projectId: string): PositionedStream<ProjectJobStatusEvent> {
    return streams.projectJobStatus(this.id, projectId);
  }

  /** One shard of the job status changes of all this tenant's jobs (see JOB_STATUS_SHARDS, jobStatusShard). */
  jobStatus(shard: number): PositionedStream<TenantJobStatusEvent> {
    return streams.tenantJobStatus(this.id, shard);
  }
}

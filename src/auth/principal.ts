import { registerEnumType } from 'type-graphql';

export enum Role {
  VIEWER = 'viewer',
  EDITOR = 'editor',
  WORKER = 'worker',
  ADMIN = 'admin',
}
registerEnumType(Role, {
  name: 'Role',
  description: 'What a caller may do: viewer reads, editor writes, worker reports job progress, admin does everything.',
});

/** The verified caller of a request: always from a verified token, never from an argument. */
export interface Principal {
  userId: string;
  tenantId: string;
  roles: Role[];
  /** Token expiry, epoch seconds. */
  expiresAt?: number;
}

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
  valuesConfig: {
    VIEWER: { description: 'Reads the tenant’s data.' },
    EDITOR: { description: 'Reads and writes the tenant’s data, and reviews jobs.' },
    WORKER: { description: 'Claims pipeline work and reports its progress.' },
    ADMIN: { description: 'May do everything, across tenants too.' },
  },
});

/** True when `value` is one of the Role values (as a token's roles claim or a script's argument spells them). */
export function isRole(value: unknown): value is Role {
  return Object.values(Role).some((role) => role === value);
}

/** The verified caller of a request: always from a verified token, never from an argument. */
export interface Principal {
  userId: string;
  tenantId: string;
  roles: Role[];
  /** Token expiry, epoch seconds. */
  expiresAt?: number;
}

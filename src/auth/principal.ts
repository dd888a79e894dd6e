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

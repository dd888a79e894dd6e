import { invalidTransition } from '../errors';

/**
 * A status machine: which statuses each status may move to. Pure, so it is tested offline; the
 * write that follows is conditioned on the version it was judged against.
 */
export class StateMachine<S extends string> {
  constructor(
    readonly entity: string,
    private readonly edges: Record<S, readonly S[]>,
  ) {}

  can(from: S, to: S): boolean {
    return (this.edges[from] ?? []).includes(to);
  }

  /** Throws INVALID_TRANSITION naming `from` and `to` unless the move is allowed. */
  assert(id: string, from: S, to: S): void {
    if (!this.can(from, to)) throw invalidTransition(this.entity, id, from, to);
  }
}

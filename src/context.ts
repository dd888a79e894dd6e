import type { Principal } from './auth/principal';
import { unauthenticated } from './errors';
import type { FilesService } from './common/files/files.service';

/**
 * What a request's resolvers reach through `ctx.repos`, bound to the caller's tenant. Each
 * feature adds its own repository to this interface next to its resolver, with
 * `declare module '../context' { interface Repositories { … } }`, so this file names no feature
 * and a feature never imports what is built on top of it. The wiring (src/wiring.ts) must return
 * every entry, which the compiler checks.
 */
export interface Repositories {
  /** Presigned upload and download URLs under the caller's tenant prefix. */
  files: FilesService;
}

/**
 * A request's context: the verified caller and, built on first use, repositories bound to the
 * caller's tenant. It is a class because Apollo copies the context's own properties for each
 * operation; the `repos` getter lives on the prototype, so copying never triggers it.
 *
 * The repositories come from `build`, which the wiring provides (see createContext there): the
 * context only decides when they are built, which is once, on first use.
 */
export class Context {
  private built?: Repositories;

  constructor(
    readonly principal: Principal | null,
    private readonly build: (principal: Principal) => Repositories,
  ) {}

  /** The caller's repositories; reading it without a verified caller throws UNAUTHENTICATED. */
  get repos(): Repositories {
    if (!this.principal) throw unauthenticated();
    this.built ??= this.build(this.principal);
    return this.built;
  }

  /**
   * Lets go of the repositories built so far; reading `repos` again builds them anew. A
   * subscription's context serves only the creation of its source stream, which keeps what it
   * needs itself, while the transport may hold the context for as long as the subscription lives.
   */
  release(): void {
    this.built = undefined;
  }
}

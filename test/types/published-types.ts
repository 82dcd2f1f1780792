/**
 * Compile-time check of the types published for custom code (types/apidsl.d.ts, written by hand) against
 * the runtime's own: the context providers, processors and controllers receive (server/pipeline/custom-context.ts),
 * the request and the user in it, paginators, metadata mutators, the authenticator and voters. The build
 * (`tsc`) fails when one side changes and the other does not.
 */
import type * as Published from '../../types/apidsl.js';
import type { OperationKind } from '../../grammar/catalogue/types.js';
import type { SecurityUser } from '../../server/expression/evaluate.js';
import type { Mutator } from '../../server/metadata/written-options.js';
import type { FullPaginator, PartialPaginator } from '../../server/paginators.js';
import type { CustomContext, PublicOperation } from '../../server/pipeline/custom-context.js';
import type { PublicRequest } from '../../server/pipeline/state.js';
import type { AuthenticationRequest } from '../../server/security/authenticate.js';
import type { Item } from '../../server/store/types.js';
import type { Equal, Expect } from './assert.js';

/**
 * The runtime hands one context to every kind of custom code; the published types split it by what each
 * kind may use. `previousData` is `unknown` at run time (the read stage's result) and published as what a
 * processor meets there, `Item | null`.
 */
type Context = Omit<CustomContext, 'previousData'>;
type Without<T, K extends keyof T> = Omit<T, K | 'previousData'>;

export type Shapes = [
  Expect<Equal<Published.ApiRequest, PublicRequest>>,
  Expect<Equal<Published.ApiOperation, PublicOperation>>,
  Expect<Equal<Published.ApiOperation['kind'], OperationKind>>,
  Expect<Equal<Published.User, SecurityUser>>,
  Expect<Equal<Published.Item, Item>>,
  Expect<Equal<Published.AuthenticationRequest, AuthenticationRequest>>,
  Expect<Equal<Published.Mutator, Mutator>>,
  // Contexts: the same members, of the same types.
  Expect<Equal<Without<Published.ControllerContext, never>, Context>>,
  Expect<Equal<Without<Published.ProcessorContext, never>, Omit<Context, 'data'>>>,
  Expect<Equal<Published.ProviderContext, Omit<Context, 'data' | 'persist' | 'remove' | 'increment'>>>,
  Expect<Equal<keyof Published.ControllerContext, keyof CustomContext>>,
  // Custom code is called with what the runtime has.
  Expect<Equal<Parameters<Published.Provider>, [Published.ProviderContext]>>,
  Expect<Equal<Parameters<Published.Controller>, [Published.ControllerContext]>>,
  Expect<Equal<Parameters<Published.Authenticator>, [AuthenticationRequest]>>,
  Expect<Equal<Parameters<Published.Voter>, [attribute: string, subject: unknown, user: SecurityUser | null]>>,
];

/** Type-checked, never called: the runtime's paginators are published paginators, and a published one is read as a page. */
export function paginatorsAgree(
  full: FullPaginator,
  partial: PartialPaginator,
  published: Published.Paginator,
): [Published.Paginator, Published.Paginator, PartialPaginator] {
  return [full, partial, published];
}

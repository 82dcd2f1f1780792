/**
 * The context custom code receives (docs/language.md; types/apidsl.d.ts): the operation, URI variables,
 * filters, the request (with its attributes Map), the data at hand, the user, and the default
 * persistence as `persist`/`remove`.
 */
import type { OperationKind } from '../../grammar/catalogue/types.js';
import type { OperationMetadata } from '../metadata/types.js';
import type { SecurityUser } from '../expression/expression.js';
import type { Item } from '../store/types.js';
import type { OperationState, PublicRequest } from './state.js';
import { storedForm } from './representation/denormalize.js';
import { persistItem, removeItem } from './writes/persist.js';

export interface PublicOperation {
  name: string;
  kind: OperationKind;
  method: string;
  uriTemplate: string;
  resource: string;
  options: Readonly<Record<string, unknown>>;
}

export interface CustomContext {
  operation: PublicOperation;
  uriVariables: Record<string, string>;
  filters: Record<string, unknown>;
  request: PublicRequest;
  data: unknown;
  previousData: unknown;
  /** The authenticated user, null for an anonymous request. */
  user: SecurityUser | null;
  /** A GraphQL operation's arguments (none for REST). */
  args?: Record<string, unknown>;
  /** Items of the operation's resource whose properties equal `equal` (every item for `{}`), at most `limit`. */
  find(equal?: Record<string, unknown>, limit?: number): Promise<Item[]>;
  persist(data: Item): Promise<Item>;
  remove(data: Item): Promise<void>;
}

export function publicOperation(op: OperationMetadata): PublicOperation {
  return {
    name: op.name,
    kind: op.kind,
    method: op.method,
    uriTemplate: op.path,
    resource: op.resource.shortName,
    options: op.options,
  };
}

export function customContext(state: OperationState): CustomContext {
  return {
    operation: publicOperation(state.operation),
    uriVariables: state.uriVariables,
    filters: state.request.query,
    request: state.request,
    data: state.data,
    previousData: state.previousData,
    user: state.principal.user,
    ...(state.args ? { args: state.args } : {}),
    find: (equal = {}, limit) =>
      state.storeCollection.find({
        where: Object.entries(equal).map(([field, value]) => ({ op: 'eq', field, value })),
        ...(limit !== undefined ? { limit } : {}),
      }),
    persist: (data) => persistItem(state, storedForm(state.operation.resource, data)),
    remove: (data) => removeItem(state, data),
  };
}

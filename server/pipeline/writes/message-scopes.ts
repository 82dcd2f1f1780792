/**
 * Row-level scopes on the writes of message handlers (docs/scopes.md, "Messages"). A request that dispatches a
 * message puts its user in the envelope (dispatch.ts); whenever the handler runs, in the request or later in a
 * consumer, its writes through `ctx` are checked against the write scopes as that user: the dispatching operation's
 * for items of the message's own class, the operation that would make the change for any other resource. Fail
 * closed: a message that carries no user, or one that cannot be rebuilt, is refused where a scope needs a user.
 */
import type { Envelope, WriteGuard } from '../../messenger/index.js';
import type { SecurityUser } from '../../expression/evaluate.js';
import type { OperationMetadata, ResourceMetadata } from '../../metadata/types.js';
import { principalOf, scopeContext } from '../../security/access.js';
import type { Id, Item } from '../../store/types.js';
import type { Runtime } from '../runtime.js';
import { changingOperation, operationScope, writeScopeCheck, type WriteScopeCheck } from '../scopes.js';

/** The message's user as it was sent: null for an anonymous caller, undefined when there is none to rebuild. */
function senderOf(envelope: Envelope): SecurityUser | null | undefined {
  const user: unknown = envelope.headers.user;
  if (user === null) return null;
  if (typeof user !== 'object' || user === undefined) return undefined;
  const { identifier, roles, claims } = user as Record<string, unknown>;
  const isRoles = Array.isArray(roles) && roles.every((r) => typeof r === 'string');
  if (typeof identifier !== 'string' || !isRoles || typeof claims !== 'object' || claims === null) return undefined;
  return { identifier, roles: roles as string[], claims: claims as Record<string, unknown> };
}

/** The checks of the writes the handler of `envelope` makes; throws when the message itself is refused. */
export async function messageWriteGuard(
  runtime: Pick<Runtime, 'api' | 'collectionOf' | 'logger'>,
  envelope: Envelope,
): Promise<WriteGuard> {
  const { api, collectionOf } = runtime;
  const sender = senderOf(envelope);
  const refused = () =>
    new Error(`message ${envelope.id} refused: it carries no user to check the scope of its writes as`);
  const dispatching = api.resource(envelope.class)?.operations.find((o) => o.name === envelope.headers.operation);
  if (sender === undefined && dispatching && operationScope(dispatching, api)) throw refused();
  const uriVariables = envelope.headers.uriVariables ?? {};
  const context =
    sender === undefined
      ? undefined
      : scopeContext({
          security: api.security,
          principal: principalOf(api.security, sender),
          request: { method: envelope.headers.method ?? '', path: '', query: {}, headers: {} },
          uriVariables: typeof uriVariables === 'object' && uriVariables !== null ? uriVariables : {},
          logger: runtime.logger,
        });
  const checkOf = async (
    resource: ResourceMetadata,
    kind: 'create' | 'update' | 'delete',
  ): Promise<WriteScopeCheck | undefined> => {
    const op: OperationMetadata | undefined =
      dispatching?.resource === resource ? dispatching : changingOperation(resource, kind);
    if (!op || !operationScope(op, api)) return undefined;
    if (!context) throw refused();
    return writeScopeCheck(op, api, context, collectionOf);
  };
  const storedItem = (resource: ResourceMetadata, id: Id | undefined): Promise<Item | null> =>
    id === undefined ? Promise.resolve(null) : collectionOf(resource).get(id);
  return {
    async saving(messageClass, item) {
      const resource = api.resource(messageClass);
      if (!resource) return; // the write itself fails: no such resource
      const previous = await storedItem(resource, idOf(resource, item));
      const check = await checkOf(resource, previous ? 'update' : 'create');
      await check?.(previous);
      await check?.(item);
    },
    async stored(messageClass, target, kind) {
      const resource = api.resource(messageClass);
      if (!resource) return;
      const item = typeof target === 'object' ? target : await storedItem(resource, target);
      const check = await checkOf(resource, kind);
      await check?.(item);
    },
  };
}

function idOf(resource: ResourceMetadata, item: Item): Id | undefined {
  const value = resource.identifier ? item[resource.identifier.name] : undefined;
  return typeof value === 'number' || typeof value === 'string' ? value : undefined;
}

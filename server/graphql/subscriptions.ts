/**
 * Subscriptions (docs/graphql.md, "Subscriptions"), as API Platform serves them over Mercure:
 * `updateBookSubscribe(input: { id, clientSubscriptionId }): updateBookSubscriptionPayload` answers the item now,
 * with a `mercureUrl` to subscribe to at the hub. Each later committed change of the item publishes there the
 * payload's item field again (`{"book": {…the selected fields…}}`), re-executed as the subscriber: the user who
 * subscribed, so that security and property security apply as they did then. A delete publishes
 * `{"type": "delete", "payload": {"id", "iri", "type"}}` and ends the subscription. A subscriber who no longer sees the
 * item (it left their scope, docs/scopes.md) is sent nothing, its deletion included, until a change brings it back.
 *
 * Registrations live in this process, per runtime, at most MAX_REGISTRATIONS (the least recently subscribed
 * leaves first); a change is published for the subscriptions of the process whose runtime committed it.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  execute,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  Kind,
  parse,
  print,
  type DocumentNode,
  type FieldNode,
  type GraphQLFieldConfig,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import type { GraphQlOperationMetadata, ResourceMetadata } from '../metadata/types.js';
import type { PublishedChange, Runtime } from '../pipeline/runtime.js';
import { iriResolver } from '../protocol/iri.js';
import { hubUrl, mercureOptions, scopedResource, type MercureOptions } from '../realtime/index.js';
import { rawUrlEncode } from '../realtime/topics.js';
import type { Principal } from '../security/access.js';
import type { Item } from '../store/types.js';
import { graphQlContext, type GraphQlContext } from './request-context.js';
import type { ObjectTypes } from './object-types.js';
import { notFoundError, runOperation } from './run.js';

/** How many subscriptions one runtime keeps; past it the least recently subscribed is forgotten. */
export const MAX_REGISTRATIONS = 10_000;

const lcfirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

interface Registration {
  id: string;
  topic: string;
  iri: string;
  resource: ResourceMetadata;
  /** The subscription re-run on a change: its root field on the item, the payload's item field selected. */
  document: DocumentNode;
  variables: Record<string, unknown>;
  schema: GraphQLSchema;
  principal: Principal;
  origin: string;
  headers: GraphQlContext['headers'];
  options: MercureOptions;
  /**
   * Whether the subscriber saw the item at the last change: one out of their reach (scope, security) is sent
   * nothing, not even its deletion, until a change brings it back.
   */
  sees: boolean;
}

type RootField = GraphQLFieldConfig<unknown, GraphQlContext>;

/** The root field `update<ShortName>Subscribe` of a resource's Subscription. */
export function subscriptionField(types: ObjectTypes, gop: GraphQlOperationMetadata): RootField {
  const { operation: op } = gop;
  const { resource } = op;
  const prefix = `${gop.name ?? 'update'}${resource.shortName}Subscription`;
  const key = lcfirst(resource.shortName);
  const input = new GraphQLInputObjectType({
    name: `${prefix}Input`,
    fields: { id: { type: new GraphQLNonNull(GraphQLID) }, clientSubscriptionId: { type: GraphQLString } },
  });
  const payload = new GraphQLObjectType({
    name: `${prefix}Payload`,
    fields: () => ({
      [key]: { type: types.typeFor(gop) },
      mercureUrl: { type: GraphQLString },
      clientSubscriptionId: { type: GraphQLString },
    }),
  });
  return {
    type: payload,
    description: `Subscribes to the update event of a ${resource.shortName}.`,
    args: { input: { type: new GraphQLNonNull(input) } },
    resolve: async (_source, args: { input: { id: string; clientSubscriptionId?: string | null } }, ctx, info) => {
      const { id, clientSubscriptionId } = args.input;
      const match = iriResolver(ctx.runtime.api).match(id);
      if (!match || match.resource !== resource) throw notFoundError();
      const item = (await runOperation(ctx, op, { uriVariables: match.variables, args: args.input })) as Item;
      const options = mercureOptions(op, ctx.runtime.api.settings);
      const hub = hubUrl(ctx.runtime.api.settings, ctx.origin);
      let mercureUrl: string | null = null;
      if (!ctx.internal && options && hub && ctx.runtime.publisher) {
        // Registered under the item's own IRI, the one its changes are published with.
        const iri = typeof item['@id'] === 'string' ? item['@id'] : id;
        const scoped = scopedResource(op, ctx.runtime.api.settings);
        const { topic } = registrationsOf(ctx.runtime).add(ctx, info, { resource, iri, key, options, scoped });
        mercureUrl = `${hub}?topic=${encodeURIComponent(topic)}`;
      }
      return { [key]: item, clientSubscriptionId: clientSubscriptionId ?? null, mercureUrl };
    },
  };
}

/** What a subscription is to: the item, the payload's item field, and how its resource publishes. */
interface Subscribed {
  resource: ResourceMetadata;
  iri: string;
  key: string;
  options: MercureOptions;
  /** Whether the resource has a row-level scope (docs/scopes.md): its updates differ per reader. */
  scoped: boolean;
}

/**
 * `<origin>/subscriptions/<id>`, API Platform's topic. A scoped resource's is under its subscriber's own path,
 * `<origin>/users/<identifier>/subscriptions/<id>`, so that a JWT allowing a user's subscriptions
 * (`…/users/ann/subscriptions/{id}`) names no other user's, and one allowing `…/subscriptions/{id}` matches only
 * anonymous subscribers' (which hold what any anonymous caller reads).
 */
function subscriptionTopic(ctx: GraphQlContext, id: string, scoped: boolean): string {
  const user = ctx.principal.user;
  if (!scoped || !user) return `${ctx.origin}/subscriptions/${id}`;
  return `${ctx.origin}/users/${rawUrlEncode(user.identifier)}/subscriptions/${id}`;
}

const registries = new WeakMap<Runtime, Registrations>();

function registrationsOf(runtime: Runtime): Registrations {
  let registrations = registries.get(runtime);
  if (!registrations) registries.set(runtime, (registrations = new Registrations(runtime)));
  return registrations;
}

/** The subscriptions of one runtime, by id (in the order they were last made) and by item IRI. */
class Registrations {
  private readonly byId = new Map<string, Registration>();
  private readonly byIri = new Map<string, Set<string>>();
  /** Mixed into every id, so that a topic cannot be guessed from what it subscribes to. */
  private readonly salt = randomBytes(16).toString('hex');

  constructor(private readonly runtime: Runtime) {
    runtime.published?.listen((change) => {
      this.changed(change).catch((err: unknown) =>
        runtime.logger.error({ err, iri: change.iri }, 'GraphQL subscription: update not published'),
      );
    });
  }

  add(ctx: GraphQlContext, info: GraphQLResolveInfo, subscribed: Subscribed): Registration {
    const { resource, iri, key, options } = subscribed;
    const document = rerunDocument(info, iri, key);
    const variables = info.variableValues;
    const who = ctx.principal.user ? [ctx.principal.user.identifier, ...ctx.principal.roles] : [];
    const id = createHash('sha256')
      .update(JSON.stringify([this.salt, iri, print(document), variables, who]))
      .digest('hex');
    let registration = this.byId.get(id);
    if (registration) this.byId.delete(id);
    else {
      registration = {
        id,
        topic: subscriptionTopic(ctx, id, subscribed.scoped),
        iri,
        resource,
        document,
        variables,
        schema: info.schema,
        principal: ctx.principal,
        origin: ctx.origin,
        headers: { host: ctx.headers.host },
        options,
        sees: true,
      };
      let ids = this.byIri.get(iri);
      if (!ids) this.byIri.set(iri, (ids = new Set()));
      ids.add(id);
    }
    this.byId.set(id, registration);
    if (this.byId.size > MAX_REGISTRATIONS) this.remove(this.byId.keys().next().value!);
    return registration;
  }

  private remove(id: string): void {
    const registration = this.byId.get(id);
    if (!registration) return;
    this.byId.delete(id);
    const ids = this.byIri.get(registration.iri);
    ids?.delete(id);
    if (ids?.size === 0) this.byIri.delete(registration.iri);
  }

  /** Publishes, to each subscription of the changed item, what its subscriber sees of it now. */
  private async changed(change: PublishedChange): Promise<void> {
    const ids = this.byIri.get(change.iri);
    if (!ids) return;
    for (const id of [...ids]) {
      const registration = this.byId.get(id)!;
      if (change.kind === 'removed') {
        this.remove(id);
        if (!registration.sees) continue;
        const type = registration.resource.shortName;
        const iri = `${change.origin ?? registration.origin}${change.iri}`;
        this.publish(registration, { type: 'delete', payload: { id: change.iri, iri, type } });
      } else {
        const data = await this.rerun(registration);
        registration.sees = data !== undefined;
        if (data) this.publish(registration, data);
      }
    }
  }

  /** The subscription run again as its subscriber: the item field's data, or undefined when they may no longer see it. */
  private async rerun(registration: Registration): Promise<Record<string, unknown> | undefined> {
    const ctx = graphQlContext({
      runtime: this.runtime,
      principal: registration.principal,
      origin: registration.origin,
      headers: registration.headers,
      internal: true,
    });
    const result = await execute({
      schema: registration.schema,
      document: registration.document,
      variableValues: registration.variables,
      contextValue: ctx,
    });
    const payload = result.data?.subscription as Record<string, unknown> | null | undefined;
    if (result.errors?.length || !payload) {
      this.runtime.logger.debug(
        { iri: registration.iri, errors: result.errors?.map((e) => e.message) },
        'GraphQL subscription: the subscriber does not see the item; nothing published',
      );
      return undefined;
    }
    return payload;
  }

  private publish(registration: Registration, data: unknown): void {
    const { options } = registration;
    this.runtime.publisher?.publish({
      topics: [registration.topic],
      data: JSON.stringify(data),
      private: options.private,
      ...(options.type ? { type: options.type } : {}),
      ...(options.retry !== undefined ? { retry: options.retry } : {}),
    });
  }
}

/**
 * `subscription(<the request's variables>) { subscription: <field>(input: {id: "<iri>"}) { <key> { … } } }` with
 * the request's fragments: the payload's item field as the request selected it (without alias), `id` when it
 * selected none.
 */
function rerunDocument(info: GraphQLResolveInfo, iri: string, key: string): DocumentNode {
  const selected = info.fieldNodes
    .flatMap((node) => node.selectionSet?.selections ?? [])
    .filter((s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === key)
    .flatMap((field) => field.selectionSet?.selections ?? []);
  const selection = selected.length ? selected.map((s) => print(s)).join(' ') : 'id';
  const operation = info.operation;
  const variables = operation.variableDefinitions?.length
    ? `(${operation.variableDefinitions.map((v) => print(v)).join(', ')})`
    : '';
  const fragments = Object.values(info.fragments)
    .map((f) => print(f))
    .join('\n');
  return parse(
    `subscription${variables} { subscription: ${info.fieldName}(input: { id: ${JSON.stringify(iri)} }) { ${key} { ${selection} } } }\n${fragments}`,
  );
}

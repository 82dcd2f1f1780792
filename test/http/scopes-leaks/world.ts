/**
 * The leak test's world (test/http/scopes-leaks.test.ts): what a loaded API says about its scopes, the callers
 * (two users, staff, anonymous) with their JWTs, random rows for every resource (fast-check), written into a store
 * before the server starts by the import's own entry (server/pipeline/import.ts: security does not apply, so
 * any owner can be given), and the store read back once the server stopped.
 *
 * Values a scope reads (found in the scopes' plans, through relations too) are drawn from small pools: the users'
 * names, the literals the scopes compare with, null. Every other string is a token (`tok12z`) that no other value
 * contains: a token of a row outside a caller's scope found in a response is a leak, whatever the face.
 */
import fc from 'fast-check';
import { SignJWT } from 'jose';
import { pino } from 'pino';
import { parseExpression, walkExpression } from '../../../grammar/expression.js';
import { planScope, scopePaths, scopeSources, type ScopePlan } from '../../../grammar/scope-plan.js';
import type { SecurityContext } from '../../../server/expression/evaluate.js';
import { loadApi } from '../../../server/load-api.js';
import type {
  ApiMetadata,
  OperationMetadata,
  PropertyMetadata,
  ResourceMetadata,
} from '../../../server/metadata/types.js';
import { optionValue } from '../../../server/metadata/options.js';
import { RecordImport } from '../../../server/pipeline/import.js';
import { openStore, type Storage } from '../../../server/storage.js';
import type { Item } from '../../../server/store/types.js';
import { oracleScope, type OracleItem, type OracleScope } from './oracle.js';

/** The HS256 secret the leak test's JWTs are signed with where a fixture's `secret_env` is not set already. */
export const LEAK_SECRET = 'the-leak-test-secret-long-enough-for-any-hs-algorithm-0123456789abcdef';

export interface OperationScopes {
  read?: OracleScope;
  write?: OracleScope;
}

/** The loaded API and its scopes, per operation (GraphQL's included), ready for the oracle. */
export class LeakApi {
  private readonly scopes = new Map<OperationMetadata, OperationScopes>();
  /** Per resource, the properties some scope reads, with the literals it compares them with. */
  readonly scopeReads = new Map<string, Map<string, Set<unknown>>>();
  /** The roles the scopes ask `is_granted` about: staff holds them all. */
  readonly staffRoles = new Set<string>();

  private constructor(
    readonly file: string,
    readonly api: ApiMetadata,
  ) {
    for (const op of this.operations()) this.scopes.set(op, this.compile(op));
  }

  /**
   * Loads the file. The JWT secret is the one its `secret_env` names when the environment has it (other suites of
   * the same process sign with theirs), else LEAK_SECRET, set there for the server started later to inherit.
   */
  static async load(file: string): Promise<LeakApi> {
    const api = await loadApi(file);
    const secretEnv = api.security.jwt?.secretEnv;
    if (secretEnv === undefined || process.env[secretEnv]) return new LeakApi(file, api);
    process.env[secretEnv] = LEAK_SECRET;
    return LeakApi.load(file);
  }

  /** The secret the API verifies HS256 tokens with. */
  get secret(): string {
    const env = this.api.security.jwt?.secretEnv;
    return (env && process.env[env]) || LEAK_SECRET;
  }

  /** Every operation, REST and GraphQL, of every resource. */
  operations(resource?: ResourceMetadata): OperationMetadata[] {
    return (resource ? [resource] : this.api.resources).flatMap((r) => [
      ...r.operations,
      ...r.graphQlOperations.map((g) => g.operation),
    ]);
  }

  scopeOf(op: OperationMetadata): OperationScopes {
    return this.scopes.get(op) ?? this.compile(op);
  }

  /** Whether some operation reads the search index (the test then needs an engine). */
  get indexed(): boolean {
    return this.operations().some((op) => optionValue(op, 'elasticsearch') === true);
  }

  get scoped(): boolean {
    return [...this.scopes.values()].some((s) => s.read || s.write);
  }

  private compile(op: OperationMetadata): OperationScopes {
    const sources = scopeSources(op.options.scope);
    if (!sources) return {};
    for (const source of new Set([sources.read, sources.write])) if (source) this.note(op.resource, source);
    return {
      ...(sources.read ? { read: oracleScope(sources.read) } : {}),
      write: oracleScope(sources.write),
    };
  }

  /** Records what a scope reads (properties, compared literals) and the roles it asks about. */
  private note(resource: ResourceMetadata, source: string): void {
    const parsed = parseExpression(source);
    if (!parsed.ok) return;
    walkExpression(parsed.ast, (n) => {
      if (n.kind === 'call' && n.name === 'is_granted' && n.args[0]?.kind === 'constant')
        this.staffRoles.add(String(n.args[0].value));
    });
    const planned = planScope(parsed.ast);
    if (!planned.ok) return;
    for (const [path, literal] of comparedPaths(planned.plan)) {
      let owner: ResourceMetadata | undefined = resource;
      for (const name of path.slice(0, -1))
        owner = this.api.resource(owner?.properties.find((p) => p.name === name)?.relation ?? '');
      if (!owner) continue;
      const reads = this.scopeReads.get(owner.name) ?? new Map<string, Set<unknown>>();
      this.scopeReads.set(owner.name, reads);
      const literals = reads.get(path[path.length - 1]!) ?? new Set<unknown>();
      reads.set(path[path.length - 1]!, literals);
      if (literal !== undefined) literals.add(literal);
    }
  }
}

/** Each path a plan reads, with the literal it is compared with (undefined: a request value). */
function comparedPaths(p: ScopePlan): [string[], unknown][] {
  if (p.kind === 'and' || p.kind === 'or') return p.parts.flatMap(comparedPaths);
  if (p.kind === 'not') return comparedPaths(p.part);
  if (p.kind === 'compare') return [[p.path.names, p.value.kind === 'constant' ? p.value.value : undefined]];
  return scopePaths(p).map((path) => [path.names, undefined]);
}

/** A caller: a name, the JWT sent as them (none: anonymous) and what the oracle evaluates their scope with. */
export interface Caller {
  name: string;
  token?: string;
  context: SecurityContext;
}

/** The claims the fixtures' scopes read, for each user: their own tenant and team, the other one blocked. */
const CLAIMS: Record<string, Record<string, unknown>> = {
  ann: { tenant: 'ann', teams: ['ann'], blocked: ['bob'], divisor: 1, flags: [] },
  bob: { tenant: 'bob', teams: ['bob', 'carl'], blocked: ['ann'], divisor: 2, flags: [] },
  sam: {},
};

/** Ann and Bob, users; Sam, staff (every role a scope asks about); an anonymous caller. */
export async function callers(leak: LeakApi): Promise<Caller[]> {
  const jwt = leak.api.security.jwt;
  const anonymous: Caller = { name: 'anonymous', context: context(leak, null) };
  if (!jwt) return [anonymous];
  const made: Caller[] = [];
  for (const name of ['ann', 'bob', 'sam']) {
    const roles = name === 'sam' ? [...leak.staffRoles] : [];
    const payload = { ...CLAIMS[name], [jwt.rolesClaim]: roles, [jwt.userClaim]: name };
    const signed = new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('2h');
    if (jwt.issuer) signed.setIssuer(jwt.issuer);
    if (jwt.audience) signed.setAudience(jwt.audience);
    const token = await signed.sign(new TextEncoder().encode(leak.secret));
    const claims = await jwt.verify(token);
    made.push({ name, token, context: context(leak, { identifier: name, roles, claims }) });
  }
  return [...made, anonymous];
}

function context(leak: LeakApi, user: SecurityContext['user']): SecurityContext {
  const roles = new Set<string>();
  for (const role of user?.roles ?? [])
    for (const granted of leak.api.security.roleHierarchy.get(role) ?? [role]) roles.add(granted);
  return {
    user,
    roles: [...roles],
    object: null,
    previous_object: null,
    request: { method: 'GET', path: '/', query: {}, headers: {} },
    uriVariables: {},
    isGranted: (attribute) => typeof attribute === 'string' && roles.has(attribute),
  };
}

/** One stored row: its resource, identifier, IRI, values (relations as IRIs) and the tokens among them. */
export interface Row extends OracleItem {
  resource: ResourceMetadata;
  id: number | string;
  iri: string;
  tokens: string[];
}

export interface World {
  rows: Row[];
  byIri: Map<string, Row>;
  of(resource: ResourceMetadata): Row[];
  /** An identifier that names no row of the resource. */
  unknownId(resource: ResourceMetadata): number | string;
}

/**
 * A row as fast-check draws it: for a to-one relation, the rank of its target (or null), for a to-many one, ranks;
 * TOKEN where a token goes.
 */
type Shape = Record<string, unknown>;
/** A world as fast-check draws it: the shapes of each resource's rows. */
export type Shapes = Record<string, Shape[]>;
const TOKEN = '\u0000token';

/** The resources in an order where a to-one relation's target comes first (a cycle is broken by nulls). */
export function importOrder(api: ApiMetadata): ResourceMetadata[] {
  const done: ResourceMetadata[] = [];
  const visit = (r: ResourceMetadata, path: Set<ResourceMetadata>): void => {
    if (done.includes(r) || path.has(r)) return;
    path.add(r);
    for (const p of r.properties) {
      const target = p.relation && !p.array ? api.resource(p.relation) : undefined;
      if (target) visit(target, path);
    }
    done.push(r);
  };
  for (const r of api.resources) visit(r, new Set());
  return done.filter((r) => r.identifier && r.itemPath);
}

/** Random shapes for every resource: 1 to `maxRows` rows each. */
export function worldArbitrary(leak: LeakApi, maxRows = 6): fc.Arbitrary<Shapes> {
  const model: Record<string, fc.Arbitrary<Shape[]>> = {};
  for (const r of importOrder(leak.api)) {
    const fields: Record<string, fc.Arbitrary<unknown>> = {};
    for (const p of r.properties) {
      const arb = propertyArbitrary(p, leak.scopeReads.get(r.name)?.get(p.name));
      if (arb && !p.identifier) fields[p.name] = arb;
    }
    model[r.name] = fc.array(fc.record(fields), { minLength: 1, maxLength: maxRows });
  }
  return fc.record(model);
}

const USERS = ['ann', 'bob', 'sam', 'carl'];

function propertyArbitrary(p: PropertyMetadata, literals: Set<unknown> | undefined): fc.Arbitrary<unknown> | undefined {
  // A property the server fills from an expression (`default: { expression: "user?.identifier" }`) is given a value:
  // the import has no user to compute one with.
  const optional = !p.required && p.nullable && p.serverDefault === undefined;
  const orNull = (pool: unknown[]): unknown[] => (optional ? [...pool, null] : pool);
  // A to-many relation lists up to three rows of its target, any user's: a reader sees the members in their scope
  // only (docs/scopes.md, "To-many members").
  if (p.relation && p.array) return fc.uniqueArray(fc.nat(99), { maxLength: 3 });
  if (p.relation) return p.required ? fc.nat(99) : fc.option(fc.nat(99), { nil: null });
  if (p.serverDefault === 'now' || p.onUpdate || p.type === 'json') return undefined;
  if (p.enum) return fc.constantFrom(...orNull(p.enum));
  const min = p.minimum ?? 0;
  const max = p.maximum ?? 100;
  if (literals) {
    if (p.array) return fc.subarray(USERS);
    if (p.type === 'string')
      return fc.constantFrom(...orNull([...new Set([...USERS, ...literals])].filter((v) => v !== null)));
    if (p.type === 'bool') return fc.constantFrom(...orNull([true, false]));
    if (p.type === 'int' || p.type === 'number') {
      const near = [...literals].flatMap((v) => (typeof v === 'number' ? [v - 1, v, v + 1] : []));
      const pool = [...new Set([min, 5, 10, 20, ...near])].filter((n) => n >= min && n <= max);
      return fc.constantFrom(...orNull(pool));
    }
  }
  if (p.array) return p.type === 'string' && !p.format ? fc.constant([TOKEN]) : fc.constant([]);
  switch (p.type) {
    case 'string':
      return p.format && !p.required ? undefined : fc.constant(TOKEN);
    case 'int':
    case 'number':
      return fc.integer({ min, max });
    case 'bool':
      return fc.boolean();
    case 'datetime':
      return fc.constant('2026-01-02T03:04:05+00:00');
    case 'date':
      return fc.constant('2026-01-02');
    default:
      return undefined;
  }
}

/** The rows of the drawn shapes: identifiers 1…n, relations to rows of their targets, a fresh token per TOKEN. */
export function materialize(leak: LeakApi, shapes: Shapes): World {
  let tokens = 0;
  const rows: Row[] = [];
  const byResource = new Map<string, Row[]>();
  for (const resource of importOrder(leak.api)) {
    const made: Row[] = [];
    const types = Object.fromEntries(resource.properties.map((p) => [p.name, p.relation ?? p.type]));
    for (const [i, shape] of (shapes[resource.name] ?? []).entries()) {
      const id = resource.identifier!.type === 'int' ? i + 1 : `k${i + 1}`;
      const row: Row = {
        resource,
        id,
        iri: resource.itemPath!.replace(/\{[^}]+\}/, String(id)),
        values: {},
        types,
        tokens: [],
      };
      row.values[resource.identifier!.name] = id;
      for (const [name, drawn] of Object.entries(shape)) {
        const p = resource.properties.find((q) => q.name === name)!;
        const token = (): string => {
          const t = `tok${++tokens}z`;
          row.tokens.push(t);
          return t;
        };
        if (p.relation && p.array) {
          // Rows of a target imported after this resource (a cycle) cannot be listed yet: none then.
          const targets = byResource.get(p.relation) ?? [];
          const drawnRanks = Array.isArray(drawn) ? (drawn as number[]) : [];
          row.values[name] = targets.length
            ? [...new Set(drawnRanks.map((n) => targets[n % targets.length]!.iri))]
            : [];
        } else if (p.relation) {
          const targets = byResource.get(p.relation) ?? [];
          row.values[name] = typeof drawn === 'number' && targets.length ? targets[drawn % targets.length]!.iri : null;
          if (row.values[name] === null && p.required) throw new Error(`${resource.name}.${name}: no row to relate to`);
        } else if (drawn === TOKEN) row.values[name] = token();
        else if (Array.isArray(drawn)) row.values[name] = drawn.map((v) => (v === TOKEN ? token() : v));
        else row.values[name] = drawn;
      }
      made.push(row);
    }
    byResource.set(resource.name, made);
    rows.push(...made);
  }
  const byIri = new Map(rows.map((r) => [r.iri, r]));
  return {
    rows,
    byIri,
    of: (r) => byResource.get(r.name) ?? [],
    unknownId: (r) => (r.identifier!.type === 'int' ? 9999 : 'k9999'),
  };
}

const SILENT = pino({ enabled: false });

/** Writes the world's rows into the store, resource by resource, through the import's entry; a refusal throws. */
export async function seed(leak: LeakApi, world: World, storage: Storage): Promise<void> {
  const store = await openStore(storage);
  try {
    for (const resource of importOrder(leak.api)) {
      const rows = world.of(resource);
      if (rows.length === 0) continue;
      const records = await RecordImport.open(leak.api, store, resource, SILENT);
      try {
        await records.batch(
          rows.map((r) => r.values),
          async (write) => {
            for (const row of rows) {
              const outcome = await write(row.values);
              if (outcome.refusal)
                throw new Error(`${row.iri} refused: ${outcome.refusal.message} ${JSON.stringify(row.values)}`);
              // What the store holds is the truth the oracle reads (a null given may have become the default).
              for (const p of resource.properties) row.values[p.name] = outcome.item[p.name] ?? null;
            }
          },
        );
      } finally {
        await records.close();
      }
    }
  } finally {
    await store.close();
  }
}

/** Every stored item of every resource, by resource, in identifier order: what "nothing changed" compares. */
export async function storedItems(leak: LeakApi, storage: Storage): Promise<Record<string, Item[]>> {
  const store = await openStore(storage);
  try {
    const out: Record<string, Item[]> = {};
    for (const resource of importOrder(leak.api)) {
      const collection = await store.collection(resource.storage);
      const field = resource.storage.identifier!.field;
      const key = (item: Item): string => String(item[field]).padStart(12, '0');
      out[resource.name] = (await collection.find({})).sort((a, b) => (key(a) < key(b) ? -1 : 1));
    }
    return out;
  } finally {
    await store.close();
  }
}

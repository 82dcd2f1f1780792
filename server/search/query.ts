/**
 * A store query (server/store/types.ts `Query`) as a search request body: conditions become a `bool` query
 * (`term`/`terms` on keyword fields, `range`, `match` for full text), the sort a `sort` clause on the same
 * fields, `limit`/`offset` become `size`/`from`, and a keyset bound (`after`, cursor pagination) the tuple
 * comparison "strictly after these values" as a `bool` of ranges, which every engine answers alike
 * (ZincSearch has no `search_after`). Only the conditions the filters an index read allows make
 * (grammar/catalogue/filters.ts, INDEX_FILTER_KINDS), the sub-resource links (equality), and of a row-level scope
 * (docs/scopes.md) its `and`, `or`, comparisons and paths through relations (`refers`, resolved to `in` first:
 * index-collection.ts) are translated. Its `ne` and `exists` are not (ZincSearch has no `exists` query to keep the
 * store's null rules with): a read holding one is answered by the store (store-fallback.ts). Nor, on ZincSearch, is a
 * bound on a string, or on a number other than `gt`/`gte` a positive number: it ranges no string, and its numeric
 * `range` drops a bound at or below 0 and never matches a value at or below 0 (docs/elasticsearch.md).
 */
import type { PropertyMetadata, ResourceMetadata } from '../metadata/types.js';
import type { Condition, Query, Sort } from '../store/types.js';
import { exactField, isDate, type Dialect } from './mapping.js';

type Clause = Record<string, unknown>;

const EVERY: Clause = { match_all: {} };
/** Matches no document (an `or` of nothing: a scope that lets the caller see nothing). */
const NONE: Clause = { bool: { must_not: [EVERY] } };

/**
 * The documents that match at least one of `clauses`, written as "not (none of them)". A `bool` of `should` clauses
 * would rely on `minimum_should_match`, which engines read differently: Elasticsearch's default, and an explicit 0,
 * let a document that matches none through in a filter context, whereas ZincSearch ignores it (always at least one).
 * A scope's `or` written so can never be widened by it: fail closed on every engine.
 */
const anyOf = (clauses: Clause[]): Clause =>
  clauses.length === 0 ? NONE : { bool: { must_not: [{ bool: { must_not: clauses } }] } };

/** A condition the engine is not asked: a read holding one goes to the store, unless it is full text too. */
export class UntranslatableCondition extends Error {
  override readonly name = 'UntranslatableCondition';
}

type Bound = 'lt' | 'lte' | 'gt' | 'gte';

const ASKED = new Set<Condition['op']>(['eq', 'in', 'lt', 'lte', 'gt', 'gte', 'text', 'refers']);

/**
 * Whether some engine may be asked the conditions, at any depth (`refers`: once resolved): what none is asked
 * (`ne`, `exists`) goes to the store without asking which engine answers (so also while it is away).
 */
export const askable = (conditions: readonly Condition[] | undefined): boolean =>
  (conditions ?? []).every((c) => (c.op === 'and' || c.op === 'or' ? askable(c.conditions) : ASKED.has(c.op)));

/** Whether any condition, at any depth, is full text: only the engine answers it. */
export const hasFullText = (conditions: readonly Condition[] | undefined): boolean =>
  (conditions ?? []).some((c) => (c.op === 'and' || c.op === 'or' ? hasFullText(c.conditions) : c.op === 'text'));

export class QueryTranslator {
  private readonly props: Map<string, PropertyMetadata>;

  constructor(
    resource: ResourceMetadata,
    private readonly dialect: Dialect,
  ) {
    this.props = new Map(resource.properties.map((p) => [p.name, p]));
  }

  /**
   * Whether the engine answers the conditions (`refers`: once resolved) and the keyset bound of `q` as the store
   * would; a read it does not goes to the store. `keyset`: the read walks `q.sort` by keyset bounds of any value
   * (a stream), so every sort field must take them.
   */
  answers(q: Pick<Query, 'where' | 'sort' | 'after'>, keyset = false): boolean {
    // A stream bounds its sort by values it has not read yet: NaN stands for any (no positive number).
    const values = keyset ? (q.sort ?? []).map(() => NaN) : (q.after?.values ?? []);
    const sort = (q.sort ?? []).slice(0, values.length);
    return (
      (q.where ?? []).every((c) => this.answered(c)) &&
      sort.every((s, i) => this.bounds(s.field, s.direction === 'asc' ? 'gt' : 'lt', values[i]))
    );
  }

  private answered(c: Condition): boolean {
    if (c.op === 'and' || c.op === 'or') return c.conditions.every((x) => this.answered(x));
    if (c.op === 'lt' || c.op === 'lte' || c.op === 'gt' || c.op === 'gte') return this.bounds(c.field, c.op, c.value);
    return ASKED.has(c.op);
  }

  /**
   * Whether the engine's `range` answers `field op value` exactly. ZincSearch (0.4) ranges numbers and times only (it
   * refuses a string's); its numeric one takes a lower bound only when positive, no upper one at all that still holds
   * the values at or below 0, which it never matches: only `gt`/`gte` a positive number is the store's answer (less
   * the values from 2^63 up, its ceiling: narrower, never wider).
   */
  private bounds(field: string, op: Bound, value: unknown): boolean {
    const property = this.props.get(field);
    if (this.dialect !== 'zincsearch' || isDate(property)) return true;
    if (property?.type !== 'int' && property?.type !== 'number') return false;
    return (op === 'gt' || op === 'gte') && typeof value === 'number' && value > 0;
  }

  private range(field: string, op: Bound, value: unknown): Clause {
    if (!this.bounds(field, op, value))
      throw new UntranslatableCondition(`the search index cannot answer '${op} ${String(value)}' on ${field}`);
    return { range: { [this.field(field)]: { [op]: value } } };
  }

  /** The `query` of the search request. */
  query(q: Pick<Query, 'where' | 'sort' | 'after'>): Clause {
    const filter = (q.where ?? []).map((c) => this.condition(c));
    if (q.after && q.sort) filter.push(this.after(q.sort, q.after.values));
    return filter.length === 0 ? { match_all: {} } : { bool: { filter } };
  }

  /** The `sort` clause: items without a value come last, whatever the direction (the engine's order). */
  sort(sort: Sort | undefined): Clause[] {
    return (sort ?? []).map((s) => ({ [this.field(s.field)]: { order: s.direction } }));
  }

  private field(name: string): string {
    return exactField(this.props.get(name), name);
  }

  private equal(field: string, value: unknown): Clause {
    // A date field answers no `term` on ZincSearch: equality is the closed range [value, value].
    if (isDate(this.props.get(field))) return { range: { [field]: { gte: value, lte: value } } };
    return { term: { [this.field(field)]: value } };
  }

  private condition(c: Condition): Clause {
    switch (c.op) {
      case 'eq':
        return this.equal(c.field, c.value);
      case 'in':
        if (isDate(this.props.get(c.field))) return anyOf(c.values.map((v) => this.equal(c.field, v)));
        return { terms: { [this.field(c.field)]: c.values } };
      case 'lt':
      case 'lte':
      case 'gt':
      case 'gte':
        return this.range(c.field, c.op, c.value);
      case 'text':
        return { match: { [c.field]: c.value } };
      case 'and':
        return c.conditions.length === 0 ? EVERY : { bool: { filter: c.conditions.map((x) => this.condition(x)) } };
      case 'or':
        return anyOf(c.conditions.map((x) => this.condition(x)));
      default:
        throw new UntranslatableCondition(`the search index cannot answer a '${c.op}' condition on ${c.field}`);
    }
  }

  /**
   * Strictly after `values` in the order of `sort`: (f1 beyond v1) or (f1 = v1 and f2 beyond v2) or …
   * A null value in the tuple bounds nothing past it (items without a value sort last).
   */
  private after(sort: Sort, values: unknown[]): Clause {
    const alternatives: Clause[] = [];
    for (let i = 0; i < sort.length; i++) {
      if (values[i] === null || values[i] === undefined) break;
      const ties = sort.slice(0, i).map((s, j) => this.equal(s.field, values[j]));
      const beyond = this.range(sort[i].field, sort[i].direction === 'asc' ? 'gt' : 'lt', values[i]);
      alternatives.push({ bool: { filter: [...ties, beyond] } });
    }
    return anyOf(alternatives);
  }
}

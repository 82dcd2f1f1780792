/**
 * A store query (server/store/types.ts `Query`) as a search request body: conditions become a `bool` query
 * (`term`/`terms` on keyword fields, `range`, `match` for full text), the sort a `sort` clause on the same
 * fields, `limit`/`offset` become `size`/`from`, and a keyset bound (`after`, cursor pagination) the tuple
 * comparison "strictly after these values" as a `bool` of ranges, which every engine answers alike
 * (ZincSearch has no `search_after`). Only the conditions the filters an index read allows make
 * (grammar/catalogue/filters.ts, INDEX_FILTER_KINDS) and the sub-resource links (equality) are translated.
 */
import type { PropertyMetadata, ResourceMetadata } from '../metadata/types.js';
import type { Condition, Query, Sort } from '../store/types.js';
import { exactField, isDate } from './mapping.js';

type Clause = Record<string, unknown>;

/** The condition kinds an index read cannot make: they would be a bug in the checker's rule. */
export class UntranslatableCondition extends Error {
  override readonly name = 'UntranslatableCondition';
}

export class QueryTranslator {
  private readonly props: Map<string, PropertyMetadata>;

  constructor(resource: ResourceMetadata) {
    this.props = new Map(resource.properties.map((p) => [p.name, p]));
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
        if (isDate(this.props.get(c.field)))
          return { bool: { should: c.values.map((v) => this.equal(c.field, v)), minimum_should_match: 1 } };
        return { terms: { [this.field(c.field)]: c.values } };
      case 'lt':
      case 'lte':
      case 'gt':
      case 'gte':
        return { range: { [this.field(c.field)]: { [c.op]: c.value } } };
      case 'text':
        return { match: { [c.field]: c.value } };
      case 'and':
        return { bool: { filter: c.conditions.map((x) => this.condition(x)) } };
      case 'or':
        return { bool: { should: c.conditions.map((x) => this.condition(x)), minimum_should_match: 1 } };
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
      const beyond = {
        range: { [this.field(sort[i].field)]: { [sort[i].direction === 'asc' ? 'gt' : 'lt']: values[i] } },
      };
      alternatives.push({ bool: { filter: [...ties, beyond] } });
    }
    return { bool: { should: alternatives, minimum_should_match: 1 } };
  }
}

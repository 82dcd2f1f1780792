// Schema evolution. Each store records, when it opens a collection, a small description of its layout
// (identifier, fields with their types and rules, indexes). At the next start the layout the file asks for
// is compared with the recorded one and the stored items are read once to count those a change would
// affect: a change that no stored item contradicts is applied by opening the collection; one that some
// contradict is refused before anything is served (docs/behaviour.md, "Changing the schema").
import type { CollectionSpec, FieldRules, FieldType, Item, Store, StoredCollection } from './types.js';
import { uniqueSets } from './unique.js';

export interface Layout {
  identifier?: { field: string; type: 'int' | 'string' };
  fields: Record<string, { type: FieldType; rules?: FieldRules }>;
  indexes: string[][];
  /** CollectionSpec.unique, absent when empty (so layouts recorded before it read the same). */
  unique?: string[][];
}

export type ChangeKind =
  | 'identifier'
  | 'new-property'
  | 'removed-property'
  | 'type'
  | 'required'
  | 'constraint'
  | 'new-index'
  | 'removed-index'
  | 'unique';

export interface Change {
  resource: string;
  /** The property (or index fields) the change is about. */
  subject: string;
  kind: ChangeKind;
  /** What changed, in words: `type int → string`. */
  detail: string;
  /** Stored items that do not fit the new layout. */
  affected: number;
  /** `apidsl migrate` can make the affected items fit (by filling the field's default). */
  fill?: { field: string; value: unknown };
}

/** A change is safe when no stored item contradicts it. */
export const isSafe = (c: Change): boolean => c.affected === 0;

export function layoutOf(spec: CollectionSpec): Layout {
  const fields: Layout['fields'] = {};
  for (const [name, type] of Object.entries(spec.fields)) {
    if (name === spec.identifier?.field) continue;
    const rules = spec.rules?.[name];
    fields[name] = rules && Object.keys(rules).length > 0 ? { type, rules } : { type };
  }
  const unique = uniqueSets(spec);
  return {
    ...(spec.identifier ? { identifier: spec.identifier } : {}),
    fields,
    indexes: spec.indexes,
    ...(unique.length > 0 ? { unique } : {}),
  };
}

/** The text a store records for the collection (compared as text: the same layout gives the same text). */
export const layoutText = (spec: CollectionSpec): string => JSON.stringify(layoutOf(spec));

function parseLayout(text: string | undefined): Layout | undefined {
  if (text === undefined) return undefined;
  try {
    const layout = JSON.parse(text) as Layout;
    return layout && typeof layout.fields === 'object' && Array.isArray(layout.indexes) ? layout : undefined;
  } catch {
    return undefined; // unreadable: every rule is checked against the items, as for data without a layout
  }
}

const CONSTRAINTS = ['minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'enum'] as const;
type Constraint = (typeof CONSTRAINTS)[number];

/** A check of every stored item, and the change it reports. */
interface Check {
  change: Omit<Change, 'affected'>;
  fails(item: Item): boolean;
}

/**
 * The changes between what `stored` holds and `spec`, each with the number of stored items it affects.
 * Reads every item once, and only when the layout differs from the recorded one (or none was recorded).
 */
export async function planChanges(spec: CollectionSpec, stored: StoredCollection | undefined): Promise<Change[]> {
  if (!stored || stored.layout === layoutText(spec)) return [];
  const before = parseLayout(stored.layout);
  const after = layoutOf(spec);
  const resource = spec.name;
  const checks: Check[] = [];
  const changes: Change[] = [];
  const note = (change: Omit<Change, 'affected' | 'resource'>): void =>
    void changes.push({ resource, affected: 0, ...change });

  const identifier = identifierCheck(resource, before, after);
  if (identifier) checks.push(identifier);
  for (const [name, field] of Object.entries(after.fields)) {
    const old = before?.fields[name];
    const rules = field.rules ?? {};
    if (before && !old) note({ subject: name, kind: 'new-property', detail: `new property (${field.type})` });
    if (!old || old.type !== field.type) {
      checks.push({
        change: {
          resource,
          subject: name,
          kind: 'type',
          detail: old ? `type ${old.type} → ${field.type}` : `values must be ${field.type}`,
        },
        fails: (item) => !fitsType(field.type, item[name]),
      });
    }
    if (rules.required && !old?.rules?.required) {
      const fill = rules.default !== undefined ? { field: name, value: rules.default } : undefined;
      checks.push({
        change: { resource, subject: name, kind: 'required', detail: 'now required', ...(fill ? { fill } : {}) },
        fails: (item) => item[name] === undefined || item[name] === null,
      });
    }
    for (const key of CONSTRAINTS) {
      if (rules[key] === undefined || JSON.stringify(rules[key]) === JSON.stringify(old?.rules?.[key])) continue;
      const was = old?.rules?.[key] === undefined ? '' : `${JSON.stringify(old.rules[key])} → `;
      const test = constraintTest(key, rules[key]);
      checks.push({
        change: { resource, subject: name, kind: 'constraint', detail: `${key} ${was}${JSON.stringify(rules[key])}` },
        fails: (item) => !test(item[name]),
      });
    }
  }
  for (const name of Object.keys(before?.fields ?? {})) {
    if (!(name in after.fields))
      note({ subject: name, kind: 'removed-property', detail: 'removed (values kept in the stored items)' });
  }
  const key = (fields: string[]): string => fields.join(',');
  const oldIndexes = new Set((before?.indexes ?? []).map(key));
  const newIndexes = new Set(after.indexes.map(key));
  for (const index of newIndexes)
    if (!oldIndexes.has(index)) note({ subject: `(${index})`, kind: 'new-index', detail: 'new index' });
  for (const index of oldIndexes)
    if (!newIndexes.has(index)) note({ subject: `(${index})`, kind: 'removed-index', detail: 'index dropped' });
  const oldUnique = new Set((before?.unique ?? []).map(key));
  for (const fields of after.unique ?? []) if (!oldUnique.has(key(fields))) checks.push(uniqueCheck(resource, fields));

  const counts = checks.map(() => 0);
  if (checks.length > 0 && stored.count > 0) {
    for await (const item of stored.items()) checks.forEach((check, i) => void (check.fails(item) && counts[i]!++));
  }
  checks.forEach((check, i) => {
    // A check with nothing to report on data without a recorded layout is no change at all.
    if (before || counts[i]! > 0) changes.push({ ...check.change, affected: counts[i]! });
  });
  return changes;
}

/** The check of the stored keys when the identifier's type changed (or no layout was recorded). */
function identifierCheck(resource: string, before: Layout | undefined, after: Layout): Check | undefined {
  const idBefore = before ? (before.identifier?.type ?? 'int') : undefined;
  const idAfter = after.identifier?.type ?? 'int';
  if (idBefore === idAfter) return undefined;
  // Without a recorded layout the stored keys themselves tell.
  const field = after.identifier?.field;
  const fits = (value: unknown): boolean =>
    idAfter === 'string' ? typeof value === 'string' : Number.isSafeInteger(value);
  return {
    change: {
      resource,
      subject: field ?? '(internal key)',
      kind: 'identifier',
      detail: `identifier type ${idBefore ?? 'as stored'} → ${idAfter}`,
    },
    // Items without an identifier field are keyed by the store's integer key.
    fails: (item) => (field === undefined ? idAfter !== 'int' : !fits(item[field])),
  };
}

/**
 * A new unique list: every stored item after the first that repeats its values (none null) fails it; the
 * change's detail names the repeated values (at most five).
 */
function uniqueCheck(resource: string, fields: string[]): Check {
  const seen = new Set<string>();
  const repeated: string[] = [];
  const change = { resource, subject: fields.join(','), kind: 'unique' as const, detail: 'now unique' };
  return {
    change,
    fails(item) {
      const values = fields.map((f) => item[f]);
      if (values.some((v) => v === undefined || v === null)) return false;
      const text = values.map((v) => JSON.stringify(v)).join(', ');
      if (!seen.has(text)) {
        seen.add(text);
        return false;
      }
      if (!repeated.includes(text)) repeated.push(text);
      const named = repeated.slice(0, 5).map((t) => (fields.length === 1 ? t : `(${t})`));
      change.detail = `now unique, but values repeat: ${named.join('; ')}${repeated.length > 5 ? '; …' : ''}`;
      return true;
    },
  };
}

/** Whether a stored value fits a field type; absent and null values fit every type. */
function fitsType(type: FieldType, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  switch (type) {
    case 'int':
      return Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'bool':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'json':
      return true;
    default: // string, iri, datetime, date
      return typeof value === 'string';
  }
}

/** Whether a stored value satisfies a constraint; absent, null and values of another type satisfy them all. */
function constraintTest(key: Constraint, bound: unknown): (value: unknown) => boolean {
  const length = (s: string): number => [...s].length;
  switch (key) {
    case 'minimum':
      return (v) => typeof v !== 'number' || v >= (bound as number);
    case 'maximum':
      return (v) => typeof v !== 'number' || v <= (bound as number);
    case 'minLength':
      return (v) => typeof v !== 'string' || length(v) >= (bound as number);
    case 'maxLength':
      return (v) => typeof v !== 'string' || length(v) <= (bound as number);
    case 'pattern': {
      const re = new RegExp(String(bound), 'u');
      return (v) => typeof v !== 'string' || re.test(v);
    }
    case 'enum': {
      const allowed = new Set((bound as unknown[]).map((x) => JSON.stringify(x)));
      return (v) => v === undefined || v === null || allowed.has(JSON.stringify(v));
    }
  }
}

/** Every change the specs make to what `store` holds, resource by resource. */
export async function planStore(store: Store, specs: CollectionSpec[]): Promise<Change[]> {
  const changes: Change[] = [];
  for (const spec of specs) changes.push(...(await planChanges(spec, await store.inspect(spec))));
  return changes;
}

/** Refused at start: some stored items do not fit the file (`changes` holds the unsafe ones). */
export class UnsafeSchemaChange extends Error {
  override readonly name = 'UnsafeSchemaChange';
  constructor(readonly changes: Change[]) {
    super(changes.map(describeChange).join('\n'));
  }
}

/** Opening the collections applies every safe change; an unsafe one throws first, before anything changed. */
export async function refuseUnsafeChanges(store: Store, specs: CollectionSpec[]): Promise<void> {
  const unsafe = (await planStore(store, specs)).filter((c) => !isSafe(c));
  if (unsafe.length > 0) throw new UnsafeSchemaChange(unsafe);
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One line: `Book.id: identifier type int → string: 3 stored items have another identifier`. */
export function describeChange(c: Change): string {
  const head = `${c.resource}.${c.subject}: ${c.detail}`;
  if (c.affected === 0) return head;
  const items = plural(c.affected, 'stored item');
  switch (c.kind) {
    case 'identifier':
      return `${head}: ${items} ${c.affected === 1 ? 'has' : 'have'} an identifier of another type`;
    case 'required':
      return `${head}: ${items} ${c.affected === 1 ? 'lacks' : 'lack'} it${c.fill ? ` (apidsl migrate fills its default ${JSON.stringify(c.fill.value)})` : ' and it has no default'}`;
    case 'type':
      return `${head}: ${items} ${c.affected === 1 ? 'holds' : 'hold'} a value of another type`;
    case 'unique':
      return `${head}: ${items} ${c.affected === 1 ? 'repeats' : 'repeat'} the values of an earlier one`;
    default:
      return `${head}: ${items} ${c.affected === 1 ? 'violates' : 'violate'} it`;
  }
}

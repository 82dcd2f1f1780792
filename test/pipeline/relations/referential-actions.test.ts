/**
 * The referential actions of a delete (docs/behaviour.md, "Deleting a referenced item") against a reference
 * model, for random APIs (three resources, to-one and to-many relations between any two of them, itself
 * included, each with a random onDelete) and random data: the delete either answers 409 and changes nothing,
 * or leaves exactly the items the model keeps, with exactly the references it keeps.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { HttpError } from '../../../server/protocol/errors.js';
import { deleteItem } from '../../../server/pipeline/relations/referential-actions.js';
import { loadApi } from '../../../server/load-api.js';
import { openSqliteStore } from '../../../server/store/sqlite/store.js';
import type { Collection, Item } from '../../../server/store/types.js';

const RESOURCES = ['R0', 'R1', 'R2'];
const ACTIONS = ['restrict', 'cascade', 'setNull'] as const;
type Action = (typeof ACTIONS)[number];
const ITEMS = 4;

interface Relation {
  from: number;
  to: number;
  many: boolean;
  action: Action;
  name: string;
}

const relation = fc
  .record({
    from: fc.nat(2),
    to: fc.nat(2),
    many: fc.boolean(),
    action: fc.constantFrom(...ACTIONS),
  })
  .map((r): Omit<Relation, 'name'> => r);

const scenario = fc
  .array(relation, { minLength: 1, maxLength: 5 })
  .map((rels): Relation[] => rels.map((r, i) => ({ ...r, name: `p${i}` })))
  .chain((relations) =>
    fc.record({
      relations: fc.constant(relations),
      // For every item of every resource and each relation from its resource: the targets it holds (item numbers).
      links: fc.array(
        fc.array(fc.array(fc.array(fc.nat(ITEMS - 1), { maxLength: 3 }), { minLength: 5, maxLength: 5 }), {
          minLength: ITEMS,
          maxLength: ITEMS,
        }),
        { minLength: 3, maxLength: 3 },
      ),
      root: fc.record({ resource: fc.nat(2), item: fc.nat(ITEMS - 1) }),
    }),
  );

const iri = (resource: number, item: number): string => `/r${resource}s/${item + 1}`;

function apiText(relations: Relation[]): string {
  return RESOURCES.map((name, r) => {
    const props = relations
      .filter((rel) => rel.from === r)
      .map((rel) => `${rel.name}: ${RESOURCES[rel.to]}${rel.many ? '[]' : ''} { onDelete: ${rel.action} }`);
    return `resource ${name} {\n  properties {\n    id: int { identifier: true }\n    ${props.join('\n    ')}\n  }\n}\n`;
  }).join('\n');
}

/** The stored state as text per item: what the model and the store are compared on. */
type State = Map<string, Item>;

function initialState(relations: Relation[], links: number[][][][]): State {
  const state: State = new Map();
  for (let r = 0; r < 3; r++) {
    for (let i = 0; i < ITEMS; i++) {
      const item: Item = { id: i + 1 };
      relations.forEach((rel, k) => {
        if (rel.from !== r) return;
        const targets = links[r]![i]![k]!.map((t) => iri(rel.to, t));
        if (rel.many) item[rel.name] = [...new Set(targets)];
        else if (targets.length > 0) item[rel.name] = targets[0];
      });
      state.set(iri(r, i), item);
    }
  }
  return state;
}

/** The reference model: the cascade's closure, then restrict anywhere → unchanged, else setNull applied. */
function expected(relations: Relation[], before: State, root: string): State | 'conflict' {
  const resourceOf = (key: string): number => Number(key.slice(2, 3));
  const holds = (item: Item, rel: Relation, target: string): boolean => {
    const v = item[rel.name];
    return Array.isArray(v) ? v.includes(target) : v === target;
  };
  const removed = new Set([root]);
  for (let changed = true; changed;) {
    changed = false;
    for (const [key, item] of before) {
      if (removed.has(key)) continue;
      const cascades = relations.some(
        (rel) =>
          rel.from === resourceOf(key) &&
          rel.action === 'cascade' &&
          [...removed].some((t) => resourceOf(t) === rel.to && holds(item, rel, t)),
      );
      if (cascades) (removed.add(key), (changed = true));
    }
  }
  const after: State = new Map();
  for (const [key, item] of before) {
    if (removed.has(key)) continue;
    const next = { ...item };
    for (const rel of relations.filter((x) => x.from === resourceOf(key))) {
      const gone = [...removed].filter((t) => resourceOf(t) === rel.to && holds(item, rel, t));
      if (gone.length === 0) continue;
      if (rel.action === 'restrict') return 'conflict';
      const v = next[rel.name];
      next[rel.name] = Array.isArray(v) ? v.filter((x) => !gone.includes(x as string)) : null;
    }
    after.set(key, next);
  }
  return after;
}

async function stored(collections: Collection[]): Promise<State> {
  const state: State = new Map();
  for (let r = 0; r < 3; r++)
    for (const item of await collections[r]!.find({})) state.set(iri(r, (item.id as number) - 1), item);
  return state;
}

describe('referential actions against a reference model (random APIs and data, embedded store)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-referential-model-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a delete answers 409 and changes nothing, or leaves exactly what the model keeps', async function () {
    this.timeout(120_000);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ relations, links, root }) => {
        const file = join(dir, `api${run++}.api`);
        writeFileSync(file, apiText(relations));
        const api = await loadApi(file);
        const store = await openSqliteStore({ memory: true });
        try {
          const resources = RESOURCES.map((name) => api.resource(name)!);
          const collections = await Promise.all(resources.map((r) => store.collection(r.storage)));
          const before = initialState(relations, links);
          for (const [key, item] of before) await collections[Number(key.slice(2, 3))]!.insert(item);
          const rootIri = iri(root.resource, root.item);
          const want = expected(relations, before, rootIri);
          const ctx = {
            api,
            collectionOf: (r: (typeof resources)[number]) => collections[resources.indexOf(r)]!,
            transaction: <T>(f: () => Promise<T>) => store.transaction!(f),
          };
          let conflict = false;
          try {
            await deleteItem(ctx, resources[root.resource]!, before.get(rootIri)!);
          } catch (e) {
            if (!(e instanceof HttpError) || e.status !== 409) throw e;
            conflict = true;
          }
          const got = await stored(collections);
          if (want === 'conflict') {
            expect(conflict, 'a restrict is reached').to.equal(true);
            expect(got).to.deep.equal(before);
          } else {
            expect(conflict, 'no restrict is reached').to.equal(false);
            expect(got).to.deep.equal(want);
          }
        } finally {
          await store.close();
        }
      }),
      { numRuns: 100 },
    );
  });
});

/**
 * The change pairs whose PostgreSQL migration plan test/diff/migration-postgres.test.ts runs on a real server: what
 * the old file's store holds, which of those rows each counting command must find in the way, and what the new
 * file's store reads back once they are removed and the plan has run.
 */
import type { Item } from '../../server/store/types.js';

export interface PlanCase {
  pair: string;
  /** Items stored through the old file's collections, by resource (integer identifiers 1, 2, 3… in this order). */
  rows: Record<string, Item[]>;
  /** What each counting command (by the step's change) finds: the rows in the way. */
  counts: Record<string, number>;
  /** The rows in the way, removed (by identifier) before the rest of the plan runs. */
  remove?: Record<string, number[]>;
  /** What the store still does itself when the new file opens it (column changes: the plan leaves them to it). */
  upgrade?: string[];
  /** Every item of each resource as the new file's store reads it back, by identifier. */
  after: Record<string, Item[]>;
}

export const PLAN_CASES: PlanCase[] = [
  {
    pair: 'property-added',
    // A member the old file did not declare is kept among the extra members: the new column reads it there.
    rows: {
      Product: [
        { name: 'lamp', stock: 3 },
        { name: 'desk', weight: 2.5 },
        { name: 'odd', weight: 'heavy' },
      ],
    },
    counts: { 'weight: values must be number': 1 },
    remove: { Product: [3] },
    upgrade: ['ALTER TABLE "product" ADD COLUMN "weight" double precision'],
    after: {
      Product: [
        { id: 1, name: 'lamp', stock: 3 },
        { id: 2, name: 'desk', weight: 2.5 },
      ],
    },
  },
  {
    pair: 'required-property-added-with-default',
    rows: { Product: [{ name: 'lamp' }, { name: 'desk', currency: null }, { name: 'odd', currency: 5 }] },
    counts: { 'currency: values must be string': 1, 'currency: now required': 2 },
    remove: { Product: [3] },
    upgrade: ['ALTER TABLE "product" ALTER COLUMN "currency" SET NOT NULL'],
    after: {
      Product: [
        { id: 1, name: 'lamp', currency: 'EUR' },
        { id: 2, name: 'desk', currency: 'EUR' },
      ],
    },
  },
  {
    pair: 'max-length-lowered',
    // Characters, not bytes: fifty accented letters or emoji fit maxLength 50.
    rows: { Product: [{ name: 'é'.repeat(50) }, { name: 'x'.repeat(51) }, { name: '😀'.repeat(50) }] },
    counts: { 'name: maxLength 100 → 50': 1 },
    remove: { Product: [2] },
    upgrade: [],
    after: {
      Product: [
        { id: 1, name: 'é'.repeat(50) },
        { id: 3, name: '😀'.repeat(50) },
      ],
    },
  },
  {
    pair: 'filter-added',
    rows: { Product: [{ name: 'lamp', publishedAt: '2024-01-02T03:04:05+00:00' }, { name: 'desk' }] },
    counts: {},
    upgrade: [],
    after: {
      Product: [
        { id: 1, name: 'lamp', publishedAt: '2024-01-02T03:04:05+00:00' },
        { id: 2, name: 'desk' },
      ],
    },
  },
  {
    pair: 'property-removed',
    rows: { Product: [{ name: 'lamp', stock: 3 }] },
    counts: {},
    upgrade: [],
    after: { Product: [{ id: 1, name: 'lamp' }] },
  },
  {
    pair: 'property-renamed',
    // A value its int column could not hold ('many') is among the extra members: it moves too.
    rows: { Product: [{ name: 'lamp', stock: 3 }, { name: 'desk' }, { name: 'odd', stock: 'many' }] },
    counts: {},
    upgrade: [],
    after: {
      Product: [
        { id: 1, name: 'lamp', quantity: 3 },
        { id: 2, name: 'desk' },
        { id: 3, name: 'odd', quantity: 'many' },
      ],
    },
  },
  {
    pair: 'property-renamed-and-narrowed',
    rows: {
      Product: [
        { name: 'lamp', stock: 3 },
        { name: 'desk', stock: -2 },
        { name: 'odd', stock: 'many' },
      ],
    },
    counts: { 'quantity: minimum 0': 1 },
    remove: { Product: [2] },
    upgrade: [],
    after: {
      Product: [
        { id: 1, name: 'lamp', quantity: 3 },
        { id: 3, name: 'odd', quantity: 'many' },
      ],
    },
  },
  {
    pair: 'property-renamed-indexed',
    // The indexes named after the column are renamed with it: the store finds every index it wants.
    rows: {
      Product: [
        { name: 'lamp', sku: 'L1' },
        { name: 'desk', sku: 7 },
        { name: 'odd', sku: null },
      ],
    },
    counts: {},
    upgrade: [],
    after: {
      Product: [
        { id: 1, name: 'lamp', code: 'L1' },
        { id: 2, name: 'desk', code: 7 },
        { id: 3, name: 'odd', code: null },
      ],
    },
  },
  {
    pair: 'resource-added',
    rows: { Product: [{ name: 'lamp' }] },
    counts: {},
    upgrade: [],
    after: { Product: [{ id: 1, name: 'lamp' }], Coupon: [] },
  },
  {
    pair: 'relation-resource-added',
    // Both tables are made before the foreign keys, the one to WishList naming the table made after Wish's.
    rows: { Product: [{ name: 'lamp' }] },
    counts: {},
    upgrade: [],
    after: { Product: [{ id: 1, name: 'lamp' }], Wish: [], WishList: [] },
  },
  {
    pair: 'relation-list-added',
    // The plan makes the join table of the new to-many relation as the store would: nothing is left to it.
    rows: { Product: [{ name: 'lamp' }], Review: [{ body: 'a', product: '/products/1' }, { alsoAbout: 'x' }] },
    counts: { 'alsoAbout: values must be array': 1 },
    remove: { Review: [2] },
    upgrade: [],
    after: { Review: [{ id: 1, body: 'a', product: '/products/1' }] },
  },
  {
    pair: 'relation-list-added-with-default',
    // The fill makes the join table (the indexes step leaves it out), then a row per member for each review, the
    // one holding an explicit null included; nothing is left to the store.
    rows: {
      Product: [{ name: 'lamp' }, { name: 'desk' }],
      Review: [{ body: 'a' }, { body: 'b', product: '/products/2' }, { body: 'c', alsoAbout: null }],
    },
    counts: { 'alsoAbout: values must be array': 0, 'alsoAbout: now required': 3 },
    upgrade: [],
    after: {
      Review: [
        { id: 1, body: 'a', alsoAbout: ['/products/1'] },
        { id: 2, body: 'b', product: '/products/2', alsoAbout: ['/products/1'] },
        { id: 3, body: 'c', alsoAbout: ['/products/1'] },
      ],
    },
  },
  {
    pair: 'relation-made-required-with-default',
    // The count reads the column's keys as the IRIs the reviews hold; the fill writes the default's key.
    rows: {
      Product: [{ name: 'lamp' }, { name: 'desk' }],
      Review: [{ body: 'a', product: '/products/2' }, { body: 'b' }, { body: 'c', product: null }],
    },
    counts: { 'product: now required': 2 },
    upgrade: ['ALTER TABLE "review" ALTER COLUMN "product" SET NOT NULL'],
    after: {
      Review: [
        { id: 1, body: 'a', product: '/products/2' },
        { id: 2, body: 'b', product: '/products/1' },
        { id: 3, body: 'c', product: '/products/1' },
      ],
    },
  },
  {
    pair: 'relation-unique-added',
    // The count reads a text key as the IRI encodeURIComponent spells ('%zz' as '/shelves/%25zz'), which differs
    // from '/shelves/%zz', no key's IRI, kept as written among the extra members; 'é/1' is referred to twice.
    rows: {
      Shelf: [{ id: '%zz' }, { id: 'é/1' }, { id: 'x' }],
      Book: [
        { title: 'a', shelf: '/shelves/%25zz' },
        { title: 'b', shelf: '/shelves/%zz' },
        { title: 'c', shelf: '/shelves/%C3%A9%2F1' },
        { title: 'd', shelf: '/shelves/%C3%A9%2F1' },
        { title: 'e', shelf: '/shelves/x' },
        { title: 'f' },
      ],
    },
    counts: { 'shelf: now unique': 1 },
    remove: { Book: [4] },
    upgrade: [],
    after: {
      Book: [
        { id: 1, title: 'a', shelf: '/shelves/%25zz' },
        { id: 2, title: 'b', shelf: '/shelves/%zz' },
        { id: 3, title: 'c', shelf: '/shelves/%C3%A9%2F1' },
        { id: 5, title: 'e', shelf: '/shelves/x' },
        { id: 6, title: 'f' },
      ],
    },
  },
  {
    pair: 'unique-added',
    // Nulls and absent values repeat freely; each item after the first with a value is in the way.
    rows: {
      Product: [
        { name: 'a', sku: 'A1' },
        { name: 'b', sku: 'A1' },
        { name: 'c', sku: 'B2' },
        { name: 'd', sku: null },
        { name: 'e', sku: null },
        { name: 'f' },
        { name: 'g', sku: 'A1' },
      ],
    },
    counts: { 'sku: now unique': 2 },
    remove: { Product: [2, 7] },
    upgrade: [],
    after: {
      Product: [
        { id: 1, name: 'a', sku: 'A1' },
        { id: 3, name: 'c', sku: 'B2' },
        { id: 4, name: 'd', sku: null },
        { id: 5, name: 'e', sku: null },
        { id: 6, name: 'f' },
      ],
    },
  },
  {
    pair: 'unique-removed',
    rows: {
      Product: [
        { name: 'a', sku: 'A1' },
        { name: 'b', sku: 'B2' },
      ],
    },
    counts: {},
    upgrade: [],
    after: {
      Product: [
        { id: 1, name: 'a', sku: 'A1' },
        { id: 2, name: 'b', sku: 'B2' },
      ],
    },
  },
  {
    pair: 'enum-values-removed',
    rows: {
      Product: [
        { name: 'a', status: 'draft' },
        { name: 'b', status: 'published' },
        { name: 'c', status: null },
      ],
    },
    counts: { 'status: enum ["draft","published"] → ["published"]': 1 },
    remove: { Product: [1] },
    upgrade: [],
    after: {
      Product: [
        { id: 2, name: 'b', status: 'published' },
        { id: 3, name: 'c', status: null },
      ],
    },
  },
  {
    pair: 'property-type-to-list',
    // 1.5 and 'x' are kept among the extra members (the int column cannot hold them): in the way all the same.
    rows: { Product: [{ name: 'a', stock: 3 }, { name: 'b', stock: 1.5 }, { name: 'c', stock: 'x' }, { name: 'd' }] },
    counts: { 'stock: type int → array': 3 },
    remove: { Product: [1, 2, 3] },
    upgrade: ['ALTER TABLE "product" ALTER COLUMN "stock" TYPE jsonb USING to_jsonb("stock")'],
    after: { Product: [{ id: 4, name: 'd' }] },
  },
  {
    pair: 'identifier-type-changed',
    // Every stored review has an integer identifier; once none is left the store makes the table anew.
    rows: {
      Review: [
        { body: 'bright', rating: 5 },
        { body: 'dim', rating: 2 },
      ],
    },
    counts: { 'id: identifier type int → string': 2 },
    remove: { Review: [1, 2] },
    after: { Review: [] },
  },
  {
    pair: 'relation-target-changed',
    // The relation becomes a string: the plan turns the keys back into the IRIs the reviews hold, which the text
    // column then keeps (without it, the store's own type change would leave the bare key '2').
    rows: {
      Product: [{ name: 'lamp' }, { name: 'desk' }],
      Review: [{ body: 'a', product: '/products/2' }, { body: 'b' }],
    },
    counts: { 'product: type iri → string': 0 },
    upgrade: [],
    after: {
      Review: [
        { id: 1, body: 'a', product: '/products/2' },
        { id: 2, body: 'b' },
      ],
    },
  },
  {
    pair: 'relation-retargeted',
    // The review naming a product is the one a person must point at a shop; once it is gone the column keeps shop keys.
    rows: {
      Product: [{ name: 'lamp' }, { name: 'desk' }],
      Shop: [{ name: 'corner' }],
      Review: [{ body: 'a', product: '/products/2' }, { body: 'b' }],
    },
    counts: {},
    remove: { Review: [1] },
    upgrade: [
      'ALTER TABLE "review" ALTER COLUMN "product" TYPE bigint USING (CASE WHEN starts_with("product", \'/shops/\') THEN substr("product", char_length(\'/shops/\') + 1) ELSE "product" END)::bigint',
      'ALTER TABLE "review" ADD CONSTRAINT "review_product_fkey" FOREIGN KEY ("product") REFERENCES "shop" ("id") ON DELETE RESTRICT',
    ],
    after: { Review: [{ id: 2, body: 'b' }] },
  },
  {
    pair: 'on-delete-cascade',
    // The foreign key is made anew with its new action: nothing left for the store to change.
    rows: { Product: [{ name: 'lamp' }], Review: [{ body: 'a', product: '/products/1' }] },
    counts: {},
    upgrade: [],
    after: { Review: [{ id: 1, body: 'a', product: '/products/1' }] },
  },
  {
    pair: 'relation-added',
    // The store makes the column and its foreign key when the new file opens it.
    rows: { Product: [{ name: 'lamp' }], Review: [{ body: 'a' }] },
    counts: { 'product: values must be iri': 0 },
    upgrade: [
      'ALTER TABLE "review" ADD COLUMN "product" bigint',
      'CREATE INDEX "review_product_idx" ON "review" ("product" NULLS FIRST, "id")',
      'ALTER TABLE "review" ADD CONSTRAINT "review_product_fkey" FOREIGN KEY ("product") REFERENCES "product" ("id") ON DELETE RESTRICT',
    ],
    after: { Review: [{ id: 1, body: 'a' }] },
  },
  {
    pair: 'relation-removed',
    rows: { Product: [{ name: 'lamp' }], Review: [{ body: 'a', product: '/products/1' }] },
    counts: {},
    upgrade: [],
    after: { Review: [{ id: 1, body: 'a' }] },
  },
  {
    pair: 'scope-added',
    // The scope reads the product's status: indexed on the products' table.
    rows: { Product: [{ name: 'lamp', status: 'published' }], Review: [{ body: 'a', product: '/products/1' }] },
    counts: {},
    upgrade: [],
    after: { Review: [{ id: 1, body: 'a', product: '/products/1' }] },
  },
  {
    pair: 'relation-renamed',
    // The column keeps its keys under the new name; its foreign key is made again under the new column's name.
    rows: { Product: [{ name: 'lamp' }], Review: [{ body: 'a', product: '/products/1' }, { body: 'b' }] },
    counts: {},
    upgrade: [],
    after: {
      Review: [
        { id: 1, body: 'a', item: '/products/1' },
        { id: 2, body: 'b' },
      ],
    },
  },
];

/**
 * The leak test's JSON:API face (test/http/scopes-leaks.test.ts), where the API serves `application/vnd.api+json`:
 * every collection followed through `links.next` (its `data` the caller's rows, `meta.totalItems` their count),
 * with each relation of the resource `include`d; every item, included too (outside the scope: 404, the bytes of an
 * unknown identifier). An `included` resource and a to-many relationship's member must be one the caller may read
 * (a to-one relationship may name one they may not, as an IRI: docs/scopes.md); every body goes through the
 * sight's check (no token, no IRI of a row they may not read).
 */
import type { OperationMetadata } from '../../../server/metadata/types.js';
import { request } from '../harness.js';
import { itemPath, refused, same, walkable, type Face } from './rest.js';

const MEDIA = 'application/vnd.api+json';

interface Resource {
  id: string;
  relationships?: Record<string, { data?: { id: string } | { id: string }[] | null }>;
}
interface Document {
  data?: Resource | Resource[];
  included?: Resource[];
  meta?: { totalItems?: number };
  links?: { next?: string };
}

const served = (face: Face): boolean =>
  Object.values(face.sight.leak.api.settings.formats).some((types) => types.includes(MEDIA));

export async function jsonApiFaces(face: Face): Promise<void> {
  if (!served(face)) return;
  for (const op of face.sight.leak.api.resources.flatMap((r) => r.operations).filter(walkable)) {
    const includes = ['', ...op.resource.properties.filter((p) => p.relation).map((p) => p.name)];
    if (op.isCollection && op.method === 'GET') for (const include of includes) await collection(face, op, include);
    else if (op.kind === 'Get') for (const include of includes) await items(face, op, include);
  }
}

const get = (face: Face, path: string) =>
  request(face.url, 'GET', path, {
    headers: {
      Accept: MEDIA,
      ...(face.sight.caller.token ? { Authorization: `Bearer ${face.sight.caller.token}` } : {}),
    },
  });

const withInclude = (path: string, include: string): string =>
  include ? `${path}${path.includes('?') ? '&' : '?'}include=${include}` : path;

/** Every page: the members and counts of the caller's rows, and what the pages include and relate to. */
async function collection(face: Face, op: OperationMetadata, include: string): Promise<void> {
  const { sight } = face;
  const visible = (await sight.visible(op)).map((r) => r.iri);
  const where = `GET ${withInclude(op.path, include)} as JSON:API`;
  const ids: string[] = [];
  let next: string | undefined = withInclude(op.path, include);
  for (let pages = 0; next !== undefined && pages < visible.length + 3; pages++) {
    const r = await get(face, next);
    sight.check(r.text, `${where} (${next})`);
    // An include the operation does not allow (a relation outside the output) answers 400: nothing to compare.
    if (r.status === 400 && include) return;
    if (refused(op, r.status)) return;
    if (r.status !== 200) return sight.expect(false, () => `${where} answers ${r.status}`);
    const doc = r.json as Document;
    const data = Array.isArray(doc.data) ? doc.data : [];
    ids.push(...data.map((d) => d.id));
    const total = doc.meta?.totalItems;
    if (total !== undefined)
      sight.expect(total === visible.length, () => `${where}: meta.totalItems ${total}, not ${visible.length}`);
    related(face, where, [...data, ...(doc.included ?? [])], doc.included ?? []);
    next = doc.links?.next;
  }
  sight.expect(same(ids, visible), () => `${where} lists ${ids.join(' ')}, not ${visible.join(' ')}`);
}

/** Each row as an item: in scope, readable; outside it, the unknown identifier's 404. */
async function items(face: Face, op: OperationMetadata, include: string): Promise<void> {
  const { sight } = face;
  const pathOf = (id: number | string) => itemPath(op, id);
  const unknownPath = pathOf(sight.world.unknownId(op.resource));
  const unknown = await get(face, withInclude(unknownPath, include));
  for (const row of sight.world.of(op.resource)) {
    const path = withInclude(pathOf(row.id), include);
    const r = await get(face, path);
    sight.check(r.text, `GET ${path} as JSON:API`, [pathOf(row.id)]);
    if (await sight.holds(op, row, 'read')) {
      if (r.status !== 200) continue;
      const doc = r.json as Document;
      related(face, `GET ${path} as JSON:API`, [doc.data as Resource, ...(doc.included ?? [])], doc.included ?? []);
    } else
      sight.expect(
        r.status === 404 && r.text === unknown.text.split(unknownPath).join(pathOf(row.id)),
        () => `GET ${path} as JSON:API answers ${r.status} ${r.text.slice(0, 200)}, not as ${unknownPath}`,
      );
  }
}

/** What `included` holds and to-many relationships list: only rows the caller may read. */
function related(face: Face, where: string, resources: Resource[], included: Resource[]): void {
  const { sight } = face;
  const readable = (id: string): boolean => {
    const row = sight.world.byIri.get(id);
    return row === undefined || sight.mayRead(row);
  };
  for (const r of included) sight.expect(readable(r.id), () => `${where} includes ${r.id}`);
  for (const r of resources)
    for (const [name, relation] of Object.entries(r.relationships ?? {}))
      if (Array.isArray(relation.data))
        for (const member of relation.data)
          sight.expect(readable(member.id), () => `${where}: ${r.id}'s ${name} lists ${member.id}`);
}

// What the admin writes: the fields the documentation says a client may write, and the JSON-LD keys. The record
// the admin edits also holds what it read (the identifier, read-only fields) and its own bookkeeping (`originId`);
// an API that refuses unknown or read-only attributes (`allow_extra_attributes: false`) would answer 400 to those.
const JSON_LD_KEYS = new Set(['@context', '@id', '@type']);

/** The resource a request URL is about: its collection, or an item under it. */
const resourceOf = (resources, url) => {
  const { origin, pathname } = new URL(url, window.location.href);
  return resources.find((r) => {
    const collection = new URL(r.url);
    return (
      collection.origin === origin &&
      (pathname === collection.pathname || pathname.startsWith(`${collection.pathname}/`))
    );
  });
};

/** The body of a POST, PUT or PATCH, keeping only what the resource documents as writable. */
export function writableBody(resources, url, body) {
  if (typeof body !== 'string') return body;
  const resource = resourceOf(resources ?? [], url);
  if (!resource) return body;
  const writable = new Set((resource.writableFields ?? []).map((f) => f.name));
  const data = JSON.parse(body);
  return JSON.stringify(
    Object.fromEntries(Object.entries(data).filter(([k]) => writable.has(k) || JSON_LD_KEYS.has(k))),
  );
}

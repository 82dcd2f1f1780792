// Metadata mutators of library-mutators.api.
//
//   mutator resource Book: "./mutators.mjs#addDescription"
//   mutator operation "listBooks": "./mutators.mjs#smallPages"
//
// A mutator is called as `(metadata) => metadata`: a resource mutator gets the resource's metadata,
// an operation mutator one operation's metadata (its options, by their `.api` names). Both run once
// when the file is loaded and the result is cached, so a mutator must not depend on the request.
// They return a changed copy rather than editing what they receive.

/** Descriptions kept next to the code that owns them, by resource name. */
const DESCRIPTIONS = {
  Book: 'A book of the library catalogue. `available` is false while the book is lent.',
  Author: 'A person who wrote at least one book of the library.',
};

/**
 * Resource mutator: sets the description shown in the Hydra and OpenAPI documentation, unless the
 * .api file already gives one.
 * @param {Record<string, any>} resource
 */
export function addDescription(resource) {
  const name = resource.shortName ?? resource.name;
  return { ...resource, description: resource.description ?? DESCRIPTIONS[name] ?? `${name} of the library.` };
}

/**
 * Operation mutator: small pages for listings shown on phones. The page size can be changed with
 * LIBRARY_PAGE_SIZE when the server starts (read once, at load time).
 * @param {Record<string, any>} operation
 */
export function smallPages(operation) {
  const size = Number.parseInt(process.env.LIBRARY_PAGE_SIZE ?? '', 10);
  return {
    ...operation,
    paginationItemsPerPage: Number.isInteger(size) && size > 0 ? size : 10,
    paginationClientItemsPerPage: true,
    paginationMaximumItemsPerPage: 50,
  };
}

/**
 * Operation mutator: one access rule for every operation that changes the collection, written once.
 * @param {Record<string, any>} operation
 */
export function librariansOnly(operation) {
  return {
    ...operation,
    security: "is_granted('ROLE_LIBRARIAN')",
    securityMessage: 'Only librarians can do this.',
  };
}

// Custom processor of places.api:
//
//   Post recordVisit {
//     uriTemplate: "/places/{id}/visits"     // /geo/places/{id}/visits with the route prefix
//     read: true, throwOnNotFound: true, deserialize: false
//     processor: "./places-code.mjs#recordVisit"
//   }
//
// A processor is called as `(data, ctx) => result` and replaces the default write. `ctx.persist(data)`
// and `ctx.remove(data)` call the default one; `ctx.previousData` is the stored item before the
// change. `ctx.request.attributes` is a Map: setting `_api_response_status` there overrides the
// response status of this request only (it wins over the operation's `status` and the default).
//
// The JSDoc types below are editor hints only; nothing here imports apidsl at run time.

/**
 * POST /geo/places/{id}/visits: counts one visit of an existing place.
 *
 * The operation reads the place first (`read: true`) and answers 404 before we are called when it
 * does not exist (`throwOnNotFound: true`). No body is read (`deserialize: false`), so `place` is the
 * stored place itself. Nothing is created, so the answer is 200 OK, not the 201 of a POST.
 *
 * @param {Record<string, any>} place
 * @param {import('apidsl').ProcessorContext} ctx
 */
export async function recordVisit(place, ctx) {
  const current = place ?? ctx.previousData;
  const updated = {
    ...current,
    visits: (current.visits ?? 0) + 1,
    lastVisitedAt: new Date().toISOString(),
  };
  const saved = await ctx.persist(updated);
  ctx.request.attributes.set('_api_response_status', 200);
  return saved ?? updated;
}

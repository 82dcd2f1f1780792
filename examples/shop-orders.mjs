// Custom processor of shop-orders.api: `Post { processor: "./shop-orders.mjs#placeOrder" }`.
//
// It runs inside the write's transaction (the embedded store; on MongoDB its writes are undone when it throws).
// `ctx.get(resource, id)` reads any resource, `ctx.increment(resource, id, property, delta, { min })` changes a
// number atomically and throws a 409 problem when it would go below `min`, `ctx.violation(path, message)` throws
// the 422 of a validation error, and `ctx.persist(item)` stores the order itself.

/**
 * POST /orders: takes each line's quantity off its product's stock and stores the order with its total.
 *
 * @param {Record<string, any>} order
 * @param {import('apidsl').ProcessorContext} ctx
 */
export async function placeOrder(order, ctx) {
  if (!Array.isArray(order.lines) || order.lines.length === 0) ctx.violation('lines', 'An order needs a line.');
  let total = 0;
  for (const [i, line] of order.lines.entries()) {
    const id = /^\/products\/(\d+)$/.exec(String(line.product))?.[1];
    const product = id === undefined ? null : await ctx.get('Product', Number(id));
    if (!product) ctx.violation(`lines[${i}].product`, `No product "${line.product}".`);
    if (!Number.isInteger(line.quantity) || line.quantity < 1)
      ctx.violation(`lines[${i}].quantity`, 'The quantity must be a positive whole number.');
    // Atomic: of orders racing for the last items, only as many as there is stock succeed; the others get 409.
    await ctx.increment('Product', product.id, 'stock', -line.quantity, { min: 0 });
    total += product.price * line.quantity;
  }
  return ctx.persist({ ...order, total: Math.round(total * 100) / 100 });
}

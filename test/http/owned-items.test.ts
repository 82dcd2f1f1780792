/**
 * Owned items and the writer's access to related items (docs/behaviour.md, "Owned items" and "Access to related
 * items"), over real HTTP on the embedded store (and on MongoDB with APIDSL_TEST_STORE=mongodb), with two users, ann
 * and bob. An Order owns its lines (`owned: true`): bob can neither list nor change a line of ann's order (answered as
 * an unknown IRI), a line dropped from an order is deleted, and so are all of them with the order. A Cart lists lines
 * it does not own: attaching one needs its Get security, changing one through the cart runs its Patch guards.
 * The administrator's routes on OrderLine are the test's view of the store.
 */
import { expect } from 'chai';
import { fixture, PROBLEM_JSON, tempDir, useServer, type HttpResponse } from './harness.js';
import { as, token } from './security-helpers.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

// `--memory` is MongoDB under APIDSL_TEST_STORE=mongodb (harness.ts); `--data` SQLite's file and transactions.
for (const storage of [['--memory'], ['--data', 'DIR']])
  describe(`HTTP owned items and access to related items (${storage[0]})`, function () {
    this.timeout(30_000);
    const server = useServer(fixture('owned-items.api'), () => storage.map((a) => (a === 'DIR' ? tempDir() : a)));
    let ann: string;
    let bob: string;
    let admin: string;
    let product: string;
    before(async () => {
      ann = await token({ sub: 'ann', roles: ['ROLE_USER'] });
      bob = await token({ sub: 'bob', roles: ['ROLE_USER'] });
      admin = await token({ sub: 'root', roles: ['ROLE_ADMIN'] });
      const r = await as(ann, server.url, 'POST', '/products', { body: { name: 'Tea' } });
      expect(r.status, r.text).to.equal(201);
      product = r.json['@id'] as string;
    });

    const send = (who: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      as(who, server.url, method, path, { body, headers });
    /** POSTs as `who`, expecting 201: the created document. */
    const created = async (who: string, path: string, body: unknown): Promise<Record<string, unknown>> => {
      const r = await send(who, 'POST', path, body);
      expect(r.status, r.text).to.equal(201);
      return r.json as Record<string, unknown>;
    };
    /** The line as stored (the administrator's route), null when there is none. */
    const storedLine = async (iri: string): Promise<Record<string, unknown> | null> => {
      const r = await send(admin, 'GET', iri);
      if (r.status === 404) return null;
      expect(r.status, r.text).to.equal(200);
      return r.json as Record<string, unknown>;
    };
    const count = async (path: string): Promise<number> => {
      const r = await send(admin, 'GET', path);
      expect(r.status, r.text).to.equal(200);
      return r.json.totalItems as number;
    };
    const problem = (r: HttpResponse, status: number, detail: string): void => {
      expect(r.status, r.text).to.equal(status);
      expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
      expect(r.json.detail).to.equal(detail);
    };
    /** Ann's order with lines of the given quantities: the order and its line IRIs. */
    const annOrder = async (...quantities: number[]): Promise<{ order: string; lines: string[] }> => {
      const order = await created(ann, '/orders', { lines: quantities.map((quantity) => ({ product, quantity })) });
      const lines = (order.lines as Record<string, unknown>[]).map((l) => l['@id'] as string);
      expect(lines).to.have.length(quantities.length);
      return { order: order['@id'] as string, lines };
    };

    describe('owned: true (Order owns its lines)', () => {
      it('bob cannot list a line of ann’s order by IRI: 400 exactly as an unknown IRI, nothing stored', async () => {
        const { lines } = await annOrder(2);
        const orders = await count('/orders');
        problem(await send(bob, 'POST', '/orders', { lines: [lines[0]] }), 400, `Item not found for "${lines[0]}".`);
        problem(
          await send(bob, 'POST', '/orders', { lines: ['/order_lines/99999'] }),
          400,
          'Item not found for "/order_lines/99999".',
        );
        expect(await count('/orders'), 'nothing stored').to.equal(orders);
        await created(bob, '/orders', {}); // bob may create orders: the refusals above are about the line
        expect((await storedLine(lines[0]))!.quantity).to.equal(2);
      });

      it('bob cannot add ann’s line to his own order by PATCH either: 400, his order unchanged', async () => {
        const { lines } = await annOrder(4);
        const bobs = await created(bob, '/orders', { lines: [{ product, quantity: 1 }] });
        const r = await send(
          bob,
          'PATCH',
          bobs['@id'] as string,
          { lines: [...(bobs.lines as { '@id': string }[]).map((l) => l['@id']), lines[0]] },
          MERGE,
        );
        problem(r, 400, `Item not found for "${lines[0]}".`);
        const read = await send(bob, 'GET', bobs['@id'] as string);
        expect((read.json.lines as unknown[]).length).to.equal(1);
      });

      it('a nested @id of ann’s line does not rewrite it: refused as an unknown IRI, on POST and PATCH', async () => {
        const { lines } = await annOrder(3);
        const lines0 = await count('/order_lines');
        problem(
          await send(bob, 'POST', '/orders', { lines: [{ '@id': lines[0], quantity: 99 }] }),
          400,
          `Item not found for "${lines[0]}".`,
        );
        const bobs = await created(bob, '/orders', {});
        problem(
          await send(bob, 'PATCH', bobs['@id'] as string, { lines: [{ '@id': lines[0], quantity: 99 }] }, MERGE),
          400,
          `Item not found for "${lines[0]}".`,
        );
        expect((await storedLine(lines[0]))!.quantity).to.equal(3);
        expect(await count('/order_lines')).to.equal(lines0);
      });

      it('the owner changes its own lines and notes by @id, though they have no route of their own to change them', async () => {
        const order = await created(ann, '/orders', { lines: [{ product, quantity: 1 }], notes: [{ text: 'gift' }] });
        const line = (order.lines as { '@id': string }[])[0]['@id'];
        const note = (order.notes as { '@id': string }[])[0]['@id'];
        const r = await send(
          ann,
          'PATCH',
          order['@id'] as string,
          { lines: [{ '@id': line, quantity: 5 }], notes: [{ '@id': note, text: 'wrapped gift' }] },
          MERGE,
        );
        expect(r.status, r.text).to.equal(200);
        expect((await storedLine(line))!.quantity).to.equal(5);
        expect(r.json.notes).to.deep.equal([{ '@id': note, '@type': 'Note', text: 'wrapped gift' }]);
      });

      it('orphan removal: a line a PATCH drops is deleted, then the lines a PUT drops', async () => {
        const { order, lines } = await annOrder(1, 2, 3);
        const patched = await send(ann, 'PATCH', order, { lines: [lines[0], lines[2]] }, MERGE);
        expect(patched.status, patched.text).to.equal(200);
        expect(await storedLine(lines[1]), 'dropped by the PATCH').to.equal(null);
        expect((await storedLine(lines[0]))!.quantity).to.equal(1);
        const put = await send(ann, 'PUT', order, {
          lines: [
            { '@id': lines[2], quantity: 6 },
            { product, quantity: 7 },
          ],
        });
        expect(put.status, put.text).to.equal(200);
        expect(await storedLine(lines[0]), 'dropped by the PUT').to.equal(null);
        expect((await storedLine(lines[2]))!.quantity).to.equal(6);
        const added = (put.json.lines as { '@id': string }[])[1]['@id'];
        expect((await storedLine(added))!.quantity).to.equal(7);
      });

      it('deleting the order deletes its lines and notes; another order’s lines stay', async () => {
        const { order, lines } = await annOrder(1, 2);
        const { lines: others } = await annOrder(8);
        const before = await count('/order_lines');
        const withNote = await send(ann, 'PATCH', order, { notes: [{ text: 'bye' }] }, MERGE);
        const note = (withNote.json.notes as { '@id': string }[])[0]['@id'];
        const r = await send(ann, 'DELETE', order);
        expect(r.status, r.text).to.equal(204);
        for (const line of lines) expect(await storedLine(line), line).to.equal(null);
        expect(await count('/order_lines')).to.equal(before - 2);
        expect((await storedLine(others[0]))!.quantity).to.equal(8);
        // The note is gone from the store: naming it now is naming nothing.
        problem(await send(ann, 'POST', '/orders', { notes: [note] }), 400, `Item not found for "${note}".`);
      });

      it('an owned line is reached through its order only: another, unowned relation cannot name it, even for the administrator', async () => {
        const { lines } = await annOrder(2);
        problem(
          await send(admin, 'POST', '/carts', { favourites: [lines[0]] }),
          400,
          `Item not found for "${lines[0]}".`,
        );
        problem(
          await send(admin, 'POST', '/carts', { favourites: [{ '@id': lines[0], quantity: 9 }] }),
          400,
          `Item not found for "${lines[0]}".`,
        );
        expect((await storedLine(lines[0]))!.quantity).to.equal(2);
      });

      it('bob cannot delete ann’s order, nor so its lines', async () => {
        const { order, lines } = await annOrder(2);
        expect((await send(bob, 'DELETE', order)).status).to.equal(403);
        expect((await storedLine(lines[0]))!.quantity).to.equal(2);
      });
    });

    describe('without owned (a Cart lists CartLines)', () => {
      const annLine = async (quantity = 2): Promise<string> =>
        (await created(ann, '/cart_lines', { product, quantity }))['@id'] as string;

      it('attaching by IRI needs the line’s Get security: bob is answered as for an unknown IRI, ann may', async () => {
        const line = await annLine();
        problem(await send(bob, 'POST', '/carts', { lines: [line] }), 400, `Item not found for "${line}".`);
        problem(
          await send(bob, 'POST', '/carts', { lines: ['/cart_lines/99999'] }),
          400,
          'Item not found for "/cart_lines/99999".',
        );
        const cart = await created(ann, '/carts', { lines: [line] });
        expect(cart.lines).to.deep.equal([line]);
        // Bob's PATCH of his own cart is refused as well.
        const bobs = await created(bob, '/carts', {});
        problem(
          await send(bob, 'PATCH', bobs['@id'] as string, { lines: [line] }, MERGE),
          400,
          `Item not found for "${line}".`,
        );
      });

      it('a nested @id change runs the line’s Patch security: bob gets its 403 and message, nothing stored', async () => {
        const line = await annLine(2);
        const r = await send(bob, 'POST', '/carts', { lines: [{ '@id': line, quantity: 99 }] });
        problem(r, 403, 'Not your cart line.');
        const read = await send(ann, 'GET', line);
        expect(read.json.quantity).to.equal(2);
      });

      it('the Patch’s securityPostDenormalize and securityPostValidation run with their messages; allowed, it is stored', async () => {
        const line = await annLine(2);
        problem(
          await send(ann, 'POST', '/carts', { lines: [{ '@id': line, quantity: 11 }] }),
          403,
          'At most 10 of a product.',
        );
        problem(
          await send(ann, 'POST', '/carts', { lines: [{ '@id': line, quantity: 7 }] }),
          403,
          'Seven is sold out.',
        );
        expect((await send(ann, 'GET', line)).json.quantity).to.equal(2);
        const cart = await created(ann, '/carts', { lines: [{ '@id': line, quantity: 5 }] });
        expect(cart.lines).to.deep.equal([line]);
        expect((await send(ann, 'GET', line)).json.quantity).to.equal(5);
      });

      it('the line’s property guards apply as on a PATCH of it: a denied property keeps its stored value', async () => {
        const viaCart = await annLine(1);
        const direct = await annLine(1);
        const nested = await send(ann, 'POST', '/carts', { lines: [{ '@id': viaCart, quantity: 1, gift: true }] });
        expect(nested.status, nested.text).to.equal(201);
        const patched = await send(ann, 'PATCH', direct, { quantity: 1, gift: true }, MERGE);
        expect(patched.status, patched.text).to.equal(200);
        const [a, b] = [(await send(ann, 'GET', viaCart)).json, (await send(ann, 'GET', direct)).json];
        expect(a, 'gift needs a quantity over 1').to.not.have.property('gift');
        expect(b).to.not.have.property('gift');
        const allowed = await send(ann, 'POST', '/carts', { lines: [{ '@id': viaCart, quantity: 2, gift: true }] });
        expect(allowed.status, allowed.text).to.equal(201);
        expect((await send(ann, 'GET', viaCart)).json).to.include({ quantity: 2, gift: true });
      });

      it('a target without a Patch operation cannot be changed through a nested document (400); its IRI can be listed', async () => {
        const r = await send(ann, 'POST', '/carts', { wishlist: [{ '@id': product, name: 'Coffee' }] });
        problem(
          r,
          400,
          `The nested document "wishlist[0]" changes "${product}", but Product has no Patch operation: its items cannot be changed through another item. Use the IRI alone.`,
        );
        expect((await send(ann, 'GET', product)).json.name).to.equal('Tea');
        expect((await created(ann, '/carts', { wishlist: [product] })).wishlist).to.deep.equal([product]);
      });
    });
  });

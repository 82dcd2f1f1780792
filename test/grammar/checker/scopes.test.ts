/**
 * `apidsl check` on row-level scopes (docs/scopes.md): the contract's examples are accepted; each part that does
 * not compile to a store query is refused where it is written, with the reason; the warnings (a leaking
 * collection, a scope a custom provider ignores, public updates of a scoped resource).
 */
import { expect } from 'chai';
import { check } from '../../../grammar/checker/index.js';

const HEAD = 'config { security { jwt { secret_env: "S" } } }\n';
const MODEL = `
resource Shop { properties { id: int { identifier: true }, owner: string, tags: string[], rank: int, meta: json } }
resource Order { properties { id: int { identifier: true }, shop: Shop, buyer: string, total: number } }
resource Line { properties { id: int { identifier: true }, order: Order, shops: Shop[] } }
`;

/** The findings of one scope on `resource`, as `code: the scope's text they point at`. */
function findings(resource: string, scope: string): string[] {
  const line = `resource Probe { properties { id: int { identifier: true }, ref: ${resource} } }\n`;
  const text = `${HEAD}${MODEL}${line}`.replace(
    `resource ${resource} {`,
    `resource ${resource} { scope: ${JSON.stringify(scope)},`,
  );
  const result = check(text);
  return result.all
    .filter((d) => d.code !== 'security-without-authentication')
    .map((d) => `${d.code}: ${text.slice(d.range.start, d.range.end)}`);
}

describe('checker: row-level scopes', () => {
  it("accepts the contract's examples", () => {
    const text = `${HEAD}
resource Shop { properties { id: int { identifier: true }, owner: string } }
resource Order {
  scope: "object.buyer == user.identifier or is_granted('ROLE_STAFF')"
  properties { id: int { identifier: true }, buyer: string }
}
resource Product {
  scope {
    read: "object.published == true or object.shop.owner == user?.identifier or is_granted('ROLE_STAFF')"
    write: "object.shop.owner == user.identifier or is_granted('ROLE_STAFF')"
  }
  properties { id: int { identifier: true }, published: bool, shop: Shop }
  operations {
    GetCollection drafts { uriTemplate: "/products/drafts", scope: "object.shop.owner == user.identifier" }
  }
}`;
    expect(check(text).all.filter((d) => d.severity !== 'hint' && d.code !== 'security-without-authentication')).to.be
      .empty;
  });

  it('accepts in, not in, ??, ?., literal null, URI variables and two relations', () => {
    expect(findings('Shop', "object.id in user.claims['shops'] and object.rank not in [1, 2]")).to.deep.equal([]);
    expect(findings('Shop', "(object.owner ?? 'x') == user?.identifier or object.owner == null")).to.deep.equal([]);
    expect(findings('Shop', 'user?.identifier in object.tags and not (object.rank > 3)')).to.deep.equal([]);
    expect(findings('Line', 'object.order.shop.owner == user?.identifier')).to.deep.equal([]);
  });

  it('refuses what no store query can answer, naming the part', () => {
    expect(findings('Shop', "is_granted('EDIT', object)")).to.deep.equal(["invalid-scope: is_granted('EDIT', object)"]);
    expect(findings('Shop', 'object.rank + 1 > 3')).to.deep.equal(['invalid-scope: object.rank + 1']);
    expect(findings('Order', 'object.total == object.total')).to.deep.equal([
      'invalid-scope: object.total == object.total',
    ]);
    expect(findings('Shop', "object.owner matches '/^a/'")).to.deep.equal([
      "invalid-scope: object.owner matches '/^a/'",
    ]);
    expect(findings('Shop', 'object.rank')).to.deep.equal(['invalid-scope: object.rank']);
    expect(findings('Shop', "'x' not in object.tags")).to.deep.equal(['invalid-scope: object.tags']);
  });

  it('refuses paths the store cannot read', () => {
    expect(findings('Shop', "object.tags == 'x'")).to.deep.equal(['invalid-scope: object.tags']);
    expect(findings('Shop', 'object.meta == 1')).to.deep.equal(['invalid-scope: object.meta']);
    expect(findings('Line', "object.shops.owner == 'x'")).to.deep.equal(['invalid-scope: object.shops.owner']);
    expect(findings('Order', "object.shop.ownr == 'x'")).to.deep.equal(['unknown-property: ownr']);
  });

  it('gives the reason in the message', () => {
    const message = (scope: string): string =>
      check(`${HEAD}${MODEL}`.replace('resource Shop {', `resource Shop { scope: ${JSON.stringify(scope)},`)).all.find(
        (d) => d.code === 'invalid-scope',
      )!.message;
    expect(message('object.rank * 2 > 3')).to.contain("arithmetic on a property of the item ('*')");
    expect(message("is_granted('EDIT', object)")).to.contain('voter');
    expect(message('object.rank == object.rank')).to.contain('between two properties');
  });

  it('warns when Get reads the item while the collection lists everything', () => {
    const text = `${HEAD}resource Note {
  properties { id: int { identifier: true }, owner: string }
  operations { GetCollection, Get { security: "object.owner == user.identifier" } }
}`;
    expect(check(text).all.map((d) => d.code)).to.include('scope-leak');
    const scoped = text.replace('GetCollection,', 'GetCollection { scope: "object.owner == user?.identifier" },');
    expect(check(scoped).all.map((d) => d.code)).to.not.include('scope-leak');
  });

  it("warns when Get has a scope of its own and the collection lists everything, at Get's scope", () => {
    const text = `${HEAD}resource Note {
  properties { id: int { identifier: true }, owner: string }
  operations { GetCollection, Get { scope: "object.owner == user?.identifier" } }
}`;
    const leak = check(text).all.find((d) => d.code === 'scope-leak');
    expect(leak?.message).to.contain("Note's Get has a scope of its own");
    expect(text.slice(leak!.range.start, leak!.range.end)).to.equal('"object.owner == user?.identifier"');
    expect(text.slice(0, leak!.range.start)).to.match(/Get \{ scope: $/);
    for (const fixed of [
      text.replace('GetCollection,', 'GetCollection { scope: "object.owner == user?.identifier" },'),
      text.replace('GetCollection,', 'GetCollection { security: "is_granted(\'ROLE_ADMIN\')" },'),
      text.replace('operations {', 'scope: "object.owner == user?.identifier"\n  operations {'),
    ])
      expect(check(fixed).all.map((d) => d.code)).to.not.include('scope-leak');
  });

  it('warns about a scope a custom provider ignores', () => {
    const text = `${HEAD}resource Note {
  scope: "object.owner == user?.identifier"
  properties { id: int { identifier: true }, owner: string }
  operations { GetCollection { provider: "./p.mjs#list" } }
}`;
    expect(check(text).all.map((d) => d.code)).to.include('scope-without-effect');
  });

  it('warns that `private: false` has no effect on a resource scoped on one of its operations only', () => {
    const text = `config { security { jwt { secret_env: "S" } }, mercure { hub: "builtin" } }
resource Note {
  mercure: { private: false }
  properties { id: int { identifier: true }, owner: string }
  operations { GetCollection, Get { scope: "object.owner == user?.identifier" }, Post }
}`;
    const warned = check(text).all.filter((d) => d.code === 'scope-without-effect');
    expect(warned.map((d) => text.slice(d.range.start, d.range.end))).to.deep.equal(['private: false']);
    expect(
      check(text.replace('Get { scope: "object.owner == user?.identifier" }', 'Get')).all.map((d) => d.code),
    ).to.not.include('scope-without-effect');
  });

  it('warns when a scope on an index-backed operation holds what the engine is not asked', () => {
    const codes = (scope: string, elasticsearch = true): string[] =>
      check(`${HEAD}resource Note {
  elasticsearch: ${elasticsearch}
  scope: ${JSON.stringify(scope)}
  properties { id: int { identifier: true }, owner: string, rank: int }
}`).all.map((d) => d.code);
    for (const scope of [
      "object.owner != 'x'",
      'not (object.owner == user?.identifier)',
      'object.owner == null',
      "(object.owner ?? 'nobody') == user?.identifier",
      "object.owner not in user.claims['list']",
      "not (object.owner in user.claims['list'])",
      'object.rank > 1 or object.owner != user?.identifier',
    ])
      expect(codes(scope), scope).to.include('scope-index-store');
    for (const scope of [
      'object.owner == user?.identifier',
      'not (object.rank < 3)',
      "object.owner in user.claims['list'] or is_granted('ROLE_STAFF')",
      'not (object.owner != user?.identifier)',
    ])
      expect(codes(scope), scope).to.not.include('scope-index-store');
    expect(codes("object.owner != 'x'", false)).to.not.include('scope-index-store');
  });
});

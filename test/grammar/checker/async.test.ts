/**
 * The checker on Mercure and Messenger: the settings of `config { mercure, messenger }`,
 * `mercure` without a hub (no effect), a string `mercure` (not supported), a dispatched
 * resource without a handler, and routing or handler keys naming no resource.
 */
import { expect } from 'chai';
import { check } from '../../../grammar/checker/index.js';

const codes = (text: string): [string, string, string][] =>
  check(text, { fileExists: () => true }).all.map((d) => [d.code, d.severity, d.message]);

describe('checker: Mercure, Messenger', () => {
  it('accepts the mercure and messenger settings and options', () => {
    const text = `config {
  mercure { hub: "builtin", history_size: 10, heartbeat: 0, subscriber_jwt_secret_env: "KEY" }
  messenger {
    transport: "embedded"
    routing { Book: "amqp" }
    handlers { Book: "./h.mjs#onBook" }
    amqp { dsn: "amqp://guest:guest@127.0.0.1:5672/%2f" }
    retry { max_retries: 1, delay: 10, multiplier: 1.5, max_delay: 100 }
  }
}
resource Book {
  mercure: { topics: ["urn:books"], private: true, type: "book", retry: 100 }
  properties { id: int }
  operations { Get, Post { messenger: true }, Put { messenger: "persist" }, Delete { messenger: "input" } }
}`;
    expect(codes(text)).to.deep.equal([]);
  });

  it('rejects unknown transports and values of the wrong type', () => {
    const found = codes(`config { messenger { transport: "kafka", retry { delay: "soon" } } }
resource Book { messenger: "later", properties { id: int } }`);
    expect(found.map((f) => f[0])).to.deep.equal(['invalid-value', 'invalid-value', 'invalid-value']);
  });

  it('warns that mercure has no effect without a hub, and that a string mercure is not supported', () => {
    expect(codes('resource Book { mercure: true, properties { id: int } }')).to.deep.equal([
      [
        'option-ineffective',
        'warning',
        `'mercure' has no effect: no hub is set (add config { mercure { hub: "builtin" } })`,
      ],
    ]);
    const found = codes(
      'config { mercure { hub: "builtin" } }\nresource Book { mercure: "@=iri(object)", properties { id: int } }',
    );
    expect(found).to.have.length(1);
    expect(found[0].slice(0, 2)).to.deep.equal(['not-supported', 'warning']);
    expect(found[0][2]).to.contain('not supported yet');
    expect(codes('resource Book { mercure: false, properties { id: int } }')).to.deep.equal([]);
  });

  it('reports a dispatched resource without a handler, and routing or handlers naming no resource', () => {
    expect(
      codes('resource Book { properties { id: int }, operations { Post { messenger: true } } }').map((f) => f[0]),
    ).to.deep.equal(['messenger-no-handler']);
    const found = codes(
      'config { messenger { routing { Bok: "amqp" }, handlers { Book: "./h.mjs#on", Bok: "./h.mjs#on" } } }\nresource Book { properties { id: int } }',
    );
    expect(found.map((f) => f[0])).to.deep.equal(['unknown-resource', 'unknown-resource']);
    expect(found[0][2]).to.contain("did you mean 'Book'");
  });
});

/** `apidsl check` on security expressions: exact positions inside the string, names, scope, warnings. */
import { expect } from 'chai';
import { check } from '../../../grammar/checker/index.js';
import type { Diagnostic } from '../../../grammar/diagnostics.js';
import { LineIndex } from '../../../grammar/positions.js';

const AUTH = `config {
  security {
    jwt { secret_env: "APIDSL_JWT_SECRET" }
  }
}
`;

/** Diagnostics as "code line:col-col message" (1-based lines and columns, end exclusive), optionally only these codes. */
function diagnostics(text: string, codes?: string[]): { d: Diagnostic; at: string }[] {
  const lines = new LineIndex(text);
  return check(text)
    .all.filter((d) => !codes || codes.includes(d.code))
    .map((d) => {
      const s = lines.position(d.range.start);
      const e = lines.position(d.range.end);
      return { d, at: `${d.code} ${s.line + 1}:${s.character + 1}-${e.line + 1}:${e.character + 1}` };
    });
}

const SECURITY_CODES = [
  'invalid-expression',
  'unknown-function',
  'unknown-variable',
  'object-always-null',
  'security-without-authentication',
];

/** The column (1-based) of the n-th occurrence of `needle` in line `line` (1-based) of the text. */
function column(text: string, line: number, needle: string, occurrence = 1): number {
  const l = text.split('\n')[line - 1];
  let at = -1;
  for (let i = 0; i < occurrence; i++) at = l.indexOf(needle, at + 1);
  if (at < 0) throw new Error(`${needle} not on line ${line}`);
  return at + 1;
}

describe('checker: security expressions', () => {
  it('accepts the expressions of the contract', () => {
    const text = `${AUTH}resource Book {
  properties {
    id: int
    owner: string { security: "is_granted('ROLE_ADMIN') or object.owner == user.identifier" }
  }
  security: "is_granted('ROLE_USER')"
  operations {
    Get { security: "is_granted('VIEW', object) and id > 0" }
    Put { securityPostDenormalize: "object.owner == previous_object.owner and user.claims['email'] matches '/@example\\\\.com$/'" }
    Delete { security: "has_role('ROLE_ADMIN') or (is_authenticated() and request.headers['x-api-key'] ?? null) ?: false" }
    Post { securityPostValidation: "is_fully_authenticated() and 'ROLE_EDITOR' in roles" }
  }
}
`;
    expect(diagnostics(text, SECURITY_CODES).map((x) => x.at)).to.deep.equal([]);
  });

  it('places an unknown function at its exact column, with the closest name', () => {
    const text = `${AUTH}resource Book {
  operations {
    Get { security: "is_authenticated() and is_grantd('ROLE_USER')" }
  }
}
`;
    const [x] = diagnostics(text, SECURITY_CODES);
    const col = column(text, 8, 'is_grantd');
    expect(x.at).to.equal(`unknown-function 8:${col}-8:${col + 'is_grantd'.length}`);
    expect(x.d.severity).to.equal('error');
    expect(x.d.message).to.match(/unknown function 'is_grantd'.*did you mean 'is_granted'\?/);
    expect(x.d.suggestion).to.equal('is_granted');
  });

  it('places an unknown variable at its exact column after JSON escapes in the string', () => {
    const text = `${AUTH}resource Book {
  operations {
    Get { security: "user.claims[\\"na\\u006De\\"] == \\"x\\" and usr.identifier == 'a'" }
  }
}
`;
    const [x] = diagnostics(text, SECURITY_CODES);
    const col = column(text, 8, 'usr.');
    expect(x.at).to.equal(`unknown-variable 8:${col}-8:${col + 3}`);
    expect(x.d.message).to.match(/did you mean 'user'\?/);
  });

  it('allows the URI variables of the operation, and of any operation for resource-level expressions', () => {
    const text = `${AUTH}resource Book {
  security: "isbn != '' or is_granted('ROLE_USER')"
  operations {
    Get { uriTemplate: "/books/{isbn}", security: "isbn matches '/^97[89]/' and id == 1" }
    GetCollection {}
  }
}
`;
    const found = diagnostics(text, SECURITY_CODES);
    expect(found.map((x) => x.at)).to.deep.equal([
      `unknown-variable 9:${column(text, 9, 'id ==')}-9:${column(text, 9, 'id ==') + 2}`,
    ]);
    expect(found[0].d.message).to.match(/unknown variable 'id'/);
  });

  it('reports syntax errors inside the string at their position', () => {
    const text = `${AUTH}resource Book {
  operations {
    Get { security: "is_granted('ROLE_USER') and and" }
    Delete { security: "is_granted('ROLE_USER'" }
    Patch { security: "user.name()" }
  }
}
`;
    const found = diagnostics(text, SECURITY_CODES);
    expect(found.map((x) => x.at)).to.deep.equal([
      `invalid-expression 8:${column(text, 8, 'and', 2)}-8:${column(text, 8, 'and', 2) + 3}`,
      `invalid-expression 9:${column(text, 9, '(')}-9:${column(text, 9, '(') + 1}`,
      `invalid-expression 10:${column(text, 10, 'name')}-10:${column(text, 10, 'name') + 4}`,
    ]);
    expect(found[1].d.message).to.match(/unclosed '\('/);
    expect(found[2].d.message).to.match(/method calls are not allowed/);
  });

  it("checks a parameter's security in its operation's scope, at its position", () => {
    const text = `${AUTH}filter s: search { properties: ["name"] }
resource Book {
  properties { id: int, name: string }
  operations {
    GetCollection { parameters: { n: { filter: "s", property: "name", security: "n == 'x'" } } }
    GetCollection byShop { uriTemplate: "/shops/{shop}/books", parameters: { n: { filter: "s", security: "shop == 'a' and is_granted('ROLE_USER'" } } }
  }
}
`;
    const found = diagnostics(text, SECURITY_CODES);
    expect(found.map((x) => x.at)).to.deep.equal([
      `unknown-variable 10:${column(text, 10, 'n ==')}-10:${column(text, 10, 'n ==') + 1}`,
      `invalid-expression 11:${column(text, 11, '(')}-11:${column(text, 11, '(') + 1}`,
    ]);
    expect(found[0].d.message).to.match(/unknown variable 'n'/);
  });

  it('reports wrong argument counts and bad patterns', () => {
    const text = `${AUTH}resource Book {
  operations {
    Get { security: "is_granted() or has_role('A', 'B')" }
    Delete { security: "user.identifier matches request.path or user.identifier matches '/(a/'" }
  }
}
`;
    const found = diagnostics(text, SECURITY_CODES);
    expect(found.map((x) => x.d.message)).to.satisfy(
      (m: string[]) =>
        /is_granted\(attribute, subject = null\) takes 1 to 2 arguments, not 0/.test(m[0]) &&
        /has_role\(role\) takes 1 argument, not 2/.test(m[1]) &&
        /string literal/.test(m[2]) &&
        /not valid/.test(m[3]),
    );
    expect(found[0].at).to.equal(
      `invalid-expression 8:${column(text, 8, 'is_granted')}-8:${column(text, 8, 'is_granted') + 'is_granted()'.length}`,
    );
    expect(found[2].at).to.equal(
      `invalid-expression 9:${column(text, 9, 'request.path')}-9:${column(text, 9, 'request.path') + 12}`,
    );
  });

  it("warns when a Post's security reads object or previous_object", () => {
    const text = `${AUTH}resource Book {
  security: "object == null or is_granted('EDIT', object)"
  operations {
    Post { security: "is_granted('ROLE_USER') and previous_object == null" }
    Get {}
  }
}
resource Author {
  security: "is_granted('EDIT', object)"
}
`;
    const found = diagnostics(text, ['object-always-null']);
    const col = column(text, 9, 'previous_object');
    expect(found.map((x) => x.at)).to.deep.equal([
      `object-always-null 9:${col}-9:${col + 'previous_object'.length}`,
      `object-always-null 14:${column(text, 14, 'object')}-14:${column(text, 14, 'object') + 6}`,
    ]);
    expect(found[0].d.severity).to.equal('warning');
    expect(found[1].d.message).to.match(/Post operations that inherit this security/);
  });

  it('warns about security expressions when no authentication is configured', () => {
    const text = `resource Book {
  security: "is_granted('ROLE_ADMIN')"
}
`;
    const found = diagnostics(text, SECURITY_CODES);
    expect(found.map((x) => x.at)).to.deep.equal(['security-without-authentication 2:13-2:39']);
    expect(found[0].d.severity).to.equal('warning');
    expect(found[0].d.message).to.match(/no authentication/);
    const withAuthenticator = `config { security { authenticator: "./auth.mjs#authenticate" } }\n${text}`;
    expect(diagnostics(withAuthenticator, ['security-without-authentication'])).to.deep.equal([]);
  });

  it('checks property-level expressions with the resource scope', () => {
    const text = `${AUTH}resource Book {
  properties {
    id: int
    secret: string { security: "is_granted('ROLE_ADMIN') or objet.owner == user.identifier" }
  }
}
`;
    const [x] = diagnostics(text, SECURITY_CODES);
    expect(x.at).to.equal(`unknown-variable 9:${column(text, 9, 'objet')}-9:${column(text, 9, 'objet') + 5}`);
    expect(x.d.message).to.match(/did you mean 'object'\?/);
  });
});

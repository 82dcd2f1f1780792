/**
 * The checker on the MCP endpoint (grammar/checker/rules/mcp.ts): `config mcp` and the `mcp` option are accepted,
 * the option warns while the endpoint is off, and two operations whose tools share a name are an error.
 */
import { expect } from 'chai';
import { findings } from '../../support/findings.js';

const ON = 'config { mcp { enabled: true, path: "/agents" } }\n';
const book = (body: string): string =>
  `resource Book {\n  properties { id: int { identifier: true }, title: string }\n${body}\n}\n`;
const codes = (text: string): [string, string][] => findings(text).map((d) => [d.code, d.at]);

describe('checker: MCP', () => {
  it('accepts the config block and the option on a resource and an operation', () => {
    expect(codes(ON + book('  mcp: true\n  operations { GetCollection, Get { mcp: false } }'))).to.deep.equal([]);
  });

  it('refuses a path that does not start with /', () => {
    expect(codes('config { mcp { enabled: true, path: "mcp" } }\n')).to.deep.equal([['invalid-value', '"mcp"']]);
  });

  it('warns that mcp has no effect while config mcp.enabled is not true', () => {
    const found = findings(book('  mcp: false\n  operations { Get { mcp: false } }'));
    expect(found.map((d) => [d.code, d.at])).to.deep.equal([
      ['option-ineffective', 'mcp'],
      ['option-ineffective', 'mcp'],
    ]);
    expect(found[0].message).to.contain('config mcp.enabled is not true');
  });

  it('reports two operations with one tool name, unless one is named or left out', () => {
    const clash = book('  operations {\n    Get\n    Get { uriTemplate: "/books/{id}/again" }\n  }');
    const found = findings(ON + clash);
    expect(found.map((d) => d.code)).to.deep.equal(['duplicate-mcp-tool']);
    expect(found[0].message).to.contain("'get_book'");
    expect(codes(clash)).to.deep.equal([]);
    const named = book('  operations {\n    Get\n    Get again { uriTemplate: "/books/{id}/again" }\n  }');
    expect(codes(ON + named)).to.deep.equal([]);
    const left = book('  operations {\n    Get\n    Get { uriTemplate: "/books/{id}/again", mcp: false }\n  }');
    expect(codes(ON + left)).to.deep.equal([]);
  });
});

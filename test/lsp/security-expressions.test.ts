/** Hover inside security expression strings, through the stdio server. */
import { expect } from 'chai';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { HoverRequest, type Position } from 'vscode-languageserver-protocol/node';
import { freshUri, LspClient } from './client.js';

const text = `config { security { jwt { secret_env: "APIDSL_JWT_SECRET" } } }
resource Book {
  properties {
    id: int
    owner: string { security: "is_granted('ROLE_ADMIN') or object.owner == user.identifier" }
  }
  operations {
    Get { security: "user.claims[\\"t\\u00e9nant\\"] == 'x' or has_role('ROLE_USER') and id > 0" }
  }
}
`;
const doc = TextDocument.create('x', 'apidsl', 0, text);

function at(needle: string, delta = 1): Position {
  const offset = text.indexOf(needle);
  if (offset < 0) throw new Error(needle);
  return doc.positionAt(offset + delta);
}

describe('lsp: hover in security expressions', () => {
  let client: LspClient;
  const uri = freshUri('security-hover');
  before(async () => {
    client = await LspClient.start();
    await client.open(uri, text);
  });
  after(async () => {
    await client?.stop();
  });

  const hover = async (position: Position): Promise<{ value: string; start: number; end: number } | null> => {
    const h = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
    if (!h) return null;
    const value =
      typeof h.contents === 'object' && 'value' in h.contents ? h.contents.value : JSON.stringify(h.contents);
    return { value, start: doc.offsetAt(h.range!.start), end: doc.offsetAt(h.range!.end) };
  };

  it("shows a function's signature and doc over its name", async () => {
    const h = await hover(at('is_granted', 3));
    expect(h!.value).to.include('is_granted(attribute, subject = null)').and.include('voters');
    expect([h!.start, h!.end]).to.deep.equal([
      text.indexOf('is_granted'),
      text.indexOf('is_granted') + 'is_granted'.length,
    ]);
  });

  it("shows a variable's doc, and a member of user", async () => {
    expect((await hover(at('object.owner', 2)))!.value)
      .to.include('`object`')
      .and.include('item');
    const member = await hover(at('identifier', 2));
    expect(member!.value).to.include('user.identifier');
  });

  it('places the range right after JSON escapes in the string', async () => {
    const h = await hover(at('has_role', 2));
    expect(h!.value).to.include('has_role(role)');
    expect([h!.start, h!.end]).to.deep.equal([text.indexOf('has_role'), text.indexOf('has_role') + 'has_role'.length]);
    const uriVariable = await hover(at('id > 0', 0));
    expect(uriVariable!.value).to.include('URI variable');
    expect([uriVariable!.start, uriVariable!.end]).to.deep.equal([text.indexOf('id > 0'), text.indexOf('id > 0') + 2]);
  });

  it('still shows the option doc over the key', async () => {
    expect((await hover(at('security: "user', 2)))!.value).to.include('security');
  });
});

/**
 * Hover, definition, references, highlights, rename, document symbols, folding, formatting,
 * code actions and semantic tokens, through the stdio server, on
 * test/fixtures/lsp/features.api and small broken texts.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  CodeActionRequest,
  DefinitionRequest,
  DocumentFormattingRequest,
  DocumentHighlightRequest,
  DocumentSymbolRequest,
  FoldingRangeRequest,
  HoverRequest,
  PrepareRenameRequest,
  ReferencesRequest,
  RenameRequest,
  SemanticTokensRequest,
  SymbolKind,
  type CodeAction,
  type Diagnostic,
  type DocumentSymbol,
  type Location,
  type Position,
  type TextEdit,
} from 'vscode-languageserver-protocol/node';
import { check } from '../../grammar/checker/index.js';
import { fromRoot } from '../support/paths.js';
import { freshUri, LspClient } from './client.js';

const fixture = fromRoot('test/fixtures/lsp/features.api');
const source = readFileSync(fixture, 'utf8');
const uri = pathToFileURL(fixture).href;

/** The position `delta` characters into the n-th occurrence of `needle`. */
function at(text: string, needle: string, n = 0, delta = 1): Position {
  let offset = -1;
  for (let i = 0; i <= n; i++) offset = text.indexOf(needle, offset + 1);
  if (offset < 0) throw new Error(`'${needle}' #${n} not found`);
  return TextDocument.create('x', 'apidsl', 0, text).positionAt(offset + delta);
}

const apply = (text: string, edits: TextEdit[]): string =>
  TextDocument.applyEdits(TextDocument.create('x', 'apidsl', 0, text), edits);
const lineOf = (text: string, needle: string, n = 0): number => at(text, needle, n, 0).line;

describe('lsp features', () => {
  let client: LspClient;
  before(async () => {
    client = await LspClient.start();
    await client.open(uri, source);
  });
  after(async () => {
    await client?.stop();
  });

  const hoverText = async (position: Position, doc = uri): Promise<string> => {
    const h = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri: doc }, position });
    if (!h) return '';
    return typeof h.contents === 'object' && 'value' in h.contents ? h.contents.value : JSON.stringify(h.contents);
  };

  it('checks the fixture clean (code references resolved beside the file)', async () => {
    expect((await client.diagnostics(uri, 1)).params.diagnostics).to.deep.equal([]);
  });

  describe('hover', () => {
    it('documents an option from the catalogue', async () => {
      const text = await hoverText(at(source, 'paginationClientEnabled'));
      expect(text)
        .to.include('**paginationClientEnabled**')
        .and.include('`bool`')
        .and.include('default `false`')
        .and.include('?pagination=');
    });
    it('documents a constraint, a setting, a property type and a filter kind', async () => {
      expect(await hoverText(at(source, 'maxLength')))
        .to.include('constraint')
        .and.include('Most characters allowed.');
      expect(await hoverText(at(source, 'pagination_items_per_page')))
        .to.include('defaults.pagination_items_per_page')
        .and.include('default `30`');
      expect(await hoverText(at(source, 'string {')))
        .to.include('property type')
        .and.include('Text;');
      expect(await hoverText(at(source, 'search {')))
        .to.include('filter kind')
        .and.include('strategy');
    });
    it('documents renamedFrom on a resource and on a property (apidsl diff reads it)', async () => {
      const text =
        'resource Opinion {\n  renamedFrom: "Review"\n  properties {\n    id: int { identifier: true }\n' +
        '    stars: int { renamedFrom: "rating" }\n  }\n}\n';
      const doc = freshUri('renamed-from-hover');
      await client.open(doc, text);
      expect(await hoverText(at(text, 'renamedFrom', 0, 2), doc))
        .to.include('**renamedFrom**')
        .and.include('previous version')
        .and.include('docs/diff.md');
      expect(await hoverText(at(text, 'renamedFrom', 1, 2), doc))
        .to.include('**renamedFrom**')
        .and.include('apidsl diff');
    });
    it('documents a field of a typed value', async () => {
      expect(await hoverText(at(source, 'filter: "bookSearch"')))
        .to.include('**filter** (required)')
        .and.include('Declared filter');
    });
    it('summarises a filter where it is referenced', async () => {
      const text = await hoverText(at(source, '"bookSearch"', 0, 3));
      expect(text).to.include('**filter bookSearch**: search').and.include('Used by:').and.include('GET /books');
    });
    it('summarises a resource, with its routes and properties', async () => {
      const text = await hoverText(at(source, 'Author[]'));
      expect(text)
        .to.include('**resource Author**')
        .and.include('`/authors`')
        .and.include('`/authors/{id}`')
        .and.include('`name`');
    });
    it('describes an operation by its route', async () => {
      expect(await hoverText(at(source, 'GetCollection')))
        .to.include('GET /books')
        .and.include('_api_/books_get_collection');
      expect(await hoverText(at(source, 'publishBook', 1, 3))).to.include('POST /books/{id}/publish');
    });
    it('documents elasticsearch and the match and term kinds as supported, and publishes the index checks', async () => {
      const text =
        'filter words: match { properties: ["title"] }\nfilter isbns: term { properties: ["isbn"] }\n' +
        'filter named: search { properties: ["title"] }\n' +
        'resource Book {\n  elasticsearch: true\n  properties { id: int { identifier: true }, title: string, isbn: string }\n' +
        '  operations { GetCollection { filters: [words, isbns, named] } }\n}\n';
      const doc = freshUri('elasticsearch-hover');
      await client.open(doc, text);
      const option = await hoverText(at(text, 'elasticsearch'), doc);
      expect(option).to.include('**elasticsearch**').and.include('search index');
      expect(option).not.to.include('not supported');
      expect(await hoverText(at(text, 'match {'), doc))
        .to.include('filter kind')
        .and.include('full-text');
      expect(await hoverText(at(text, 'term {'), doc)).to.include('exact value in the search index');
      const published = (await client.diagnostics(doc, 1)).params.diagnostics;
      expect(published.map((d) => [d.code, String(d.message).slice(0, 20)])).to.deep.equal([
        ['index-filter', "filter 'named' (sear"],
      ]);
    });
    it('describes a GraphQL operation by its root field, its kind, and its options', async () => {
      const text =
        'config { graphql { enabled: true } }\nresource Book {\n  properties { id: int { identifier: true } }\n  graphql {\n' +
        '    Query byIsbn { resolver: "./b.mjs#x", args: { isbn: { type: "String!" } } }\n    DeleteMutation\n  }\n}\n';
      const doc = freshUri('graphql-hover');
      await client.open(doc, text);
      expect(await hoverText(at(text, 'Query byIsbn'), doc))
        .to.include('root field `byIsbnBook`')
        .and.include('GraphQL operation of `Book`')
        .and.include('custom query');
      expect(await hoverText(at(text, 'DeleteMutation'), doc))
        .to.include('no root field')
        .and.include('A name is required');
      expect(await hoverText(at(text, 'resolver'), doc))
        .to.include('**resolver**')
        .and.include('GraphQL Query, QueryCollection, Mutation');
      expect(await hoverText(at(text, 'type:'), doc)).to.include('**type** (required)');
      expect(await hoverText(at(text, 'Book'), doc))
        .to.include('GraphQL operations:')
        .and.include('- Query byIsbn: `byIsbnBook`');
      const symbols = (await client.connection.sendRequest(DocumentSymbolRequest.type, {
        textDocument: { uri: doc },
      })) as DocumentSymbol[];
      const book = symbols.find((x) => x.name === 'Book')!;
      expect(book.children!.filter((c) => c.kind === SymbolKind.Function).map((c) => [c.name, c.detail])).to.deep.equal(
        [
          ['Query byIsbn', 'byIsbnBook'],
          ['DeleteMutation', undefined],
        ],
      );
    });
    it('answers null where there is nothing to say', async () => {
      expect(await hoverText({ line: 1, character: 0 })).to.equal('');
    });
  });

  describe('navigation', () => {
    const definition = async (position: Position): Promise<Location[]> => {
      const r = await client.connection.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position });
      return [r ?? []].flat() as Location[];
    };

    it('goes from a filter reference to the filter', async () => {
      const [loc] = await definition(at(source, '"bookSearch"', 1, 4));
      expect(loc.uri).to.equal(uri);
      expect(loc.range.start).to.deep.equal(at(source, 'bookSearch:', 0, 0));
    });
    it('goes from a relation type and a mutator target to the resource', async () => {
      expect((await definition(at(source, 'Author[]')))[0].range.start).to.deep.equal(at(source, 'Author {', 0, 0));
      expect((await definition(at(source, 'Author:', 0, 2)))[0].range.start).to.deep.equal(
        at(source, 'Author {', 0, 0),
      );
    });
    it('goes from an operation mutator to the named operation', async () => {
      const [loc] = await definition(at(source, '"publishBook"', 0, 3));
      expect(loc.range.start).to.deep.equal(at(source, 'publishBook {', 0, 0));
    });
    it('finds every reference of a filter, with or without its declaration', async () => {
      const refs = async (includeDeclaration: boolean): Promise<Location[]> =>
        (await client.connection.sendRequest(ReferencesRequest.type, {
          textDocument: { uri },
          position: at(source, 'bookSearch:'),
          context: { includeDeclaration },
        })) ?? [];
      expect((await refs(true)).map((l) => l.range.start.line)).to.deep.equal([
        lineOf(source, 'bookSearch:'),
        lineOf(source, '"bookSearch"'),
        lineOf(source, '"bookSearch"', 1),
      ]);
      expect(await refs(false)).to.have.length(2);
    });
    it('finds the references of a resource: relations and mutators', async () => {
      const refs =
        (await client.connection.sendRequest(ReferencesRequest.type, {
          textDocument: { uri },
          position: at(source, 'Author {'),
          context: { includeDeclaration: false },
        })) ?? [];
      expect(refs.map((l) => l.range.start.line)).to.deep.equal([
        lineOf(source, 'author: Author'),
        lineOf(source, 'Author[]'),
        lineOf(source, 'mutator resource'),
      ]);
    });
    it('highlights the occurrences of a name', async () => {
      const hl =
        (await client.connection.sendRequest(DocumentHighlightRequest.type, {
          textDocument: { uri },
          position: at(source, 'bookOrder'),
        })) ?? [];
      expect(hl).to.have.length(2);
    });
  });

  describe('rename', () => {
    it('prepares a rename on the name, without the quotes of a string', async () => {
      const r = await client.connection.sendRequest(PrepareRenameRequest.type, {
        textDocument: { uri },
        position: at(source, '"bookSearch"', 0, 2),
      });
      const start = at(source, '"bookSearch"', 0, 1);
      expect(r).to.deep.equal({
        range: { start, end: { line: start.line, character: start.character + 'bookSearch'.length } },
        placeholder: 'bookSearch',
      });
      expect(
        await client.connection.sendRequest(PrepareRenameRequest.type, {
          textDocument: { uri },
          position: at(source, 'resource Book'),
        }),
      ).to.equal(null);
    });
    it('renames a filter everywhere and the file stays clean', async () => {
      const edit = await client.connection.sendRequest(RenameRequest.type, {
        textDocument: { uri },
        position: at(source, 'bookSearch:'),
        newName: 'bookFinder',
      });
      const renamed = apply(source, edit!.changes![uri]);
      expect(renamed).to.not.include('bookSearch');
      expect(renamed.match(/bookFinder/g)).to.have.length(3);
      expect(renamed).to.include('["bookOrder", "bookFinder"]');
      expect(check(renamed).all.filter((d) => d.code !== 'invalid-code-reference')).to.deep.equal([]);
    });
    it('renames a resource in its relations and mutators', async () => {
      const edit = await client.connection.sendRequest(RenameRequest.type, {
        textDocument: { uri },
        position: at(source, 'Author[]'),
        newName: 'Writer',
      });
      const renamed = apply(source, edit!.changes![uri]);
      expect(renamed)
        .to.include('resource Writer {')
        .and.include('author: Writer')
        .and.include('coauthors: Writer[]')
        .and.include('mutator resource Writer:');
      expect(renamed).to.not.match(/\bAuthor\b/);
    });
    it('refuses a name that is not an identifier or already taken', async () => {
      const rename = (newName: string) =>
        client.connection.sendRequest(RenameRequest.type, {
          textDocument: { uri },
          position: at(source, 'bookSearch:'),
          newName,
        });
      const failure = (newName: string): Promise<Error | undefined> =>
        rename(newName).then(
          () => undefined,
          (e: Error) => e,
        );
      expect((await failure('book search'))?.message).to.include('not a valid filter name');
      expect((await failure('bookOrder'))?.message).to.include('already exists');
    });
  });

  it('outlines resources with their properties and operations', async () => {
    const symbols = (await client.connection.sendRequest(DocumentSymbolRequest.type, {
      textDocument: { uri },
    })) as DocumentSymbol[];
    expect(symbols.map((s) => [s.name, s.kind])).to.deep.equal([
      ['api "Library"', SymbolKind.Module],
      ['config', SymbolKind.Namespace],
      ['bookOrder', SymbolKind.Function],
      ['bookSearch', SymbolKind.Function],
      ['Author', SymbolKind.Class],
      ['Book', SymbolKind.Class],
      ['mutator resource Author', SymbolKind.Event],
      ['mutator operation publishBook', SymbolKind.Event],
    ]);
    const book = symbols.find((s) => s.name === 'Book')!;
    expect(book.detail).to.equal('/books');
    expect(book.children!.map((c) => `${c.name}: ${c.detail}`)).to.deep.equal([
      'id: int',
      'title: string',
      'author: Author',
      'coauthors: Author[]',
      'GetCollection: GET /books',
      'Get: GET /books/{id}',
      'Query: QUERY /books',
      'Post publishBook: POST /books/{id}/publish',
    ]);
    expect(symbols.find((s) => s.name === 'config')!.children!.map((c) => c.name)).to.deep.equal([
      'defaults',
      'patch_formats',
    ]);
  });

  it('folds blocks spanning lines', async () => {
    const ranges = (await client.connection.sendRequest(FoldingRangeRequest.type, { textDocument: { uri } })) ?? [];
    const folds = ranges.map((r) => [r.startLine, r.endLine]);
    expect(folds).to.deep.include([lineOf(source, 'config {'), lineOf(source, 'patch_formats')]);
    expect(folds).to.deep.include([lineOf(source, 'resource Book'), lineOf(source, 'mutator resource') - 3]);
    expect(folds).to.deep.include([lineOf(source, 'parameters: {'), lineOf(source, 'title: { filter')]);
  });

  describe('formatting', () => {
    it('formats to the canonical layout, and formatting again changes nothing', async () => {
      const messy =
        'resource   Book{\nproperties{id:int{identifier:true},title:string}\n      operations {Get,Post}}\n';
      const doc = freshUri('messy');
      await client.open(doc, messy);
      const edits =
        (await client.connection.sendRequest(DocumentFormattingRequest.type, {
          textDocument: { uri: doc },
          options: { tabSize: 2, insertSpaces: true },
        })) ?? [];
      expect(edits).to.have.length(1);
      const formatted = apply(messy, edits);
      expect(formatted).to.include('resource Book {\n');
      await client.change(doc, 2, [{ text: formatted }]);
      expect(
        await client.connection.sendRequest(DocumentFormattingRequest.type, {
          textDocument: { uri: doc },
          options: { tabSize: 2, insertSpaces: true },
        }),
      ).to.deep.equal([]);
    });
    it('leaves a file with a syntax error alone', async () => {
      const doc = freshUri('unformattable');
      await client.open(doc, 'resource Book {\n  properties { id: int\n');
      expect(
        await client.connection.sendRequest(DocumentFormattingRequest.type, {
          textDocument: { uri: doc },
          options: { tabSize: 2, insertSpaces: true },
        }),
      ).to.deep.equal([]);
    });
    it('is idempotent on the bookstore example', async () => {
      const doc = freshUri('bookstore-format');
      const bookstore = readFileSync(fromRoot('examples/bookstore.api'), 'utf8');
      await client.open(doc, bookstore);
      const options = { tabSize: 2, insertSpaces: true };
      const once = apply(
        bookstore,
        (await client.connection.sendRequest(DocumentFormattingRequest.type, {
          textDocument: { uri: doc },
          options,
        })) ?? [],
      );
      await client.change(doc, 2, [{ text: once }]);
      expect(
        await client.connection.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri: doc }, options }),
      ).to.deep.equal([]);
      expect(check(once).all).to.deep.equal([]);
    });
  });

  describe('code actions', () => {
    /** Opens a text, waits for its diagnostics and asks for the actions of the first one with `code`. */
    async function actionsFor(
      text: string,
      code: string,
    ): Promise<{ doc: string; diagnostic: Diagnostic; actions: CodeAction[] }> {
      const doc = freshUri('action');
      await client.open(doc, text);
      const { params } = await client.diagnostics(doc, 1);
      const diagnostic = params.diagnostics.find((d) => d.code === code);
      expect(diagnostic, `${code} in ${JSON.stringify(params.diagnostics)}`).to.not.equal(undefined);
      const actions = ((await client.connection.sendRequest(CodeActionRequest.type, {
        textDocument: { uri: doc },
        range: diagnostic!.range,
        context: { diagnostics: [diagnostic!] },
      })) ?? []) as CodeAction[];
      return { doc, diagnostic: diagnostic!, actions };
    }

    it('offers "did you mean" from the diagnostic suggestion', async () => {
      const text = 'resource Book {\n  paginationItemPerPage: 10\n  properties { id: int }\n}\n';
      const { doc, diagnostic, actions } = await actionsFor(text, 'unknown-option');
      expect(actions).to.have.length(1);
      expect(actions[0]).to.deep.include({
        title: "Change to 'paginationItemsPerPage' (did you mean it?)",
        kind: 'quickfix',
        isPreferred: true,
      });
      expect(actions[0].diagnostics).to.deep.equal([diagnostic]);
      expect(check(apply(text, actions[0].edit!.changes![doc])).all).to.deep.equal([]);
    });

    it("offers double quotes for '1.0.0', the built-in type for integer, and string { enum } for an enum list", async () => {
      for (const [text, code, title, expected] of [
        ['api "T" { version: \'1.0.0\' }\n', 'invalid-character', 'Use double quotes: "1.0.0"', 'version: "1.0.0"'],
        [
          'resource Talk {\n  properties { id: int, rating: integer }\n}\n',
          'unknown-type',
          "Change to 'int' (did you mean it?)",
          'rating: int }',
        ],
        [
          'resource Talk {\n  properties { id: int, status: enum { "draft", "published" } }\n}\n',
          'enum-list',
          'Write string { enum: ["draft", "published"] }',
          'status: string { enum: ["draft", "published"] } }',
        ],
      ]) {
        const { doc, actions } = await actionsFor(text, code);
        expect(actions.map((a) => a.title)).to.deep.equal([title]);
        expect(actions[0].isPreferred).to.equal(true);
        const fixed = apply(text, actions[0].edit!.changes![doc]);
        expect(fixed).to.include(expected);
        expect(check(fixed).all).to.deep.equal([]);
      }
    });

    it('keeps the quotes of a misspelt name in a string', async () => {
      const text =
        'filter bookOrder: order { properties: ["id"] }\nresource Book {\n  properties { id: int }\n  operations { GetCollection { filters: ["bookOrdr"] } }\n}\n';
      const { doc, actions } = await actionsFor(text, 'unknown-filter');
      expect(apply(text, actions[0].edit!.changes![doc])).to.include('filters: ["bookOrder"]');
    });

    it('adds the missing range and order filters of cursor pagination', async () => {
      const text =
        'resource Event {\n  properties { id: int { identifier: true } }\n  operations {\n    GetCollection {\n      paginationViaCursor: [{ field: "id", direction: "DESC" }]\n    }\n  }\n}\n';
      const { doc, actions } = await actionsFor(text, 'cursor-filters-missing');
      const fix = actions.find((a) => a.title.startsWith('Add'))!;
      expect(fix.title).to.equal("Add a range filter and an order filter on 'id' to the operation's filters");
      const fixed = apply(text, fix.edit!.changes![doc]);
      expect(fixed)
        .to.include('filter eventIdRange: range { properties: ["id"] }')
        .and.include('filter eventIdOrder: order { properties: ["id"] }');
      expect(fixed).to.include('      filters: ["eventIdRange", "eventIdOrder"]');
      expect(check(fixed).all).to.deep.equal([]);
    });

    it('completes an existing filters list with a declared filter', async () => {
      const text =
        'filter eventRange: range { properties: ["id"] }\nfilter eventOrder: order { properties: ["id"] }\n' +
        'resource Event {\n  properties { id: int { identifier: true } }\n  operations {\n    GetCollection { paginationViaCursor: [{ field: "id", direction: "DESC" }], filters: ["eventRange"] }\n  }\n}\n';
      const { doc, actions } = await actionsFor(text, 'cursor-filters-missing');
      const fixed = apply(text, actions.find((a) => a.title.startsWith('Add'))!.edit!.changes![doc]);
      expect(fixed).to.include('filters: ["eventRange", "eventOrder"]');
      expect(fixed.match(/^filter /gm)).to.have.length(2);
      expect(check(fixed).all).to.deep.equal([]);
    });

    it('inserts a missing colon and enables PATCH', async () => {
      const colon = 'resource Book {\n  description "x"\n  properties { id: int }\n}\n';
      const a = await actionsFor(colon, 'missing-colon');
      expect(apply(colon, a.actions[0].edit!.changes![a.doc])).to.include('description: "x"');
      const patch = 'resource Book {\n  properties { id: int }\n  operations { Patch }\n}\n';
      const b = await actionsFor(patch, 'patch-disabled');
      expect(check(apply(patch, b.actions[0].edit!.changes![b.doc])).all).to.deep.equal([]);
    });
  });

  it('marks resources, filters, types, operations and keys with semantic tokens', async () => {
    const { data } = (await client.connection.sendRequest(SemanticTokensRequest.type, { textDocument: { uri } }))!;
    const legend = client.initializeResult.capabilities.semanticTokensProvider!.legend;
    const tokens: { line: number; char: number; length: number; type: string; mods: string[] }[] = [];
    let line = 0;
    let char = 0;
    for (let i = 0; i < data.length; i += 5) {
      line += data[i];
      char = data[i] === 0 ? char + data[i + 1] : data[i + 1];
      tokens.push({
        line,
        char,
        length: data[i + 2],
        type: legend.tokenTypes[data[i + 3]],
        mods: legend.tokenModifiers.filter((_, b) => data[i + 4] & (1 << b)),
      });
    }
    const tokenAt = (p: Position) =>
      tokens.find((t) => t.line === p.line && t.char <= p.character && p.character < t.char + t.length);
    expect(tokenAt(at(source, 'Book {'))).to.deep.include({ type: 'class', mods: ['declaration'], length: 4 });
    expect(tokenAt(at(source, 'Author[]'))).to.deep.include({ type: 'class', mods: [] });
    expect(tokenAt(at(source, '"bookSearch"', 0, 2))).to.deep.include({ type: 'function', length: 12 });
    expect(tokenAt(at(source, 'int {'))).to.deep.include({ type: 'type', mods: ['defaultLibrary'] });
    expect(tokenAt(at(source, 'GetCollection'))).to.deep.include({ type: 'method' });
    expect(tokenAt(at(source, 'paginationClientEnabled'))).to.deep.include({
      type: 'property',
      mods: ['defaultLibrary'],
    });
    // Sorted and non-overlapping.
    for (let i = 1; i < tokens.length; i++) {
      const [a, b] = [tokens[i - 1], tokens[i]];
      expect(b.line > a.line || b.char >= a.char + a.length, JSON.stringify([a, b])).to.equal(true);
    }
  });
});

/**
 * Completions in a resource's `properties` block (a property's type: the built-in types, then
 * the resources as relations), `operations` block (the operation kinds, bare or with a block
 * of options) and `graphql` block (the GraphQL kinds, likewise).
 */
import { CompletionItemKind } from 'vscode-languageserver';
import { GRAPHQL_KINDS, OPERATION_KINDS, PROPERTY_TYPES } from '../../grammar/catalogue/index.js';
import { graphQlKindMarkdown, opKindMarkdown, propertyTypeMarkdown } from '../docs.js';
import { resourceNames, type Env } from './env.js';
import type { Item } from './item.js';

export function propertyTypeItems(env: Env): Item[] {
  const builtins = PROPERTY_TYPES.map((t) => ({
    label: t.name,
    text: t.name,
    kind: CompletionItemKind.TypeParameter,
    detail: 'property type',
    doc: propertyTypeMarkdown(t),
  }));
  const relations = resourceNames(env).map((r) => ({
    label: r,
    text: r,
    kind: CompletionItemKind.Class,
    detail: 'relation (IRI of the resource)',
    sort: '2',
  }));
  return [...builtins, ...relations];
}

export function operationKindItems(): Item[] {
  return OPERATION_KINDS.flatMap((k) => kindItems(k, 'operation', opKindMarkdown(k)));
}

/** In a `graphql` block: the GraphQL kinds. */
export function graphQlKindItems(): Item[] {
  return GRAPHQL_KINDS.flatMap((k) => kindItems(k, 'GraphQL operation', graphQlKindMarkdown(k)));
}

/** A kind, bare or with a block of options. */
function kindItems(kind: string, what: string, doc: string | undefined): Item[] {
  return [
    { label: kind, text: kind, kind: CompletionItemKind.Method, detail: `${what} kind`, doc, sort: '0' },
    {
      label: `${kind} { … }`,
      text: `${kind} {\n\t$0\n}`,
      kind: CompletionItemKind.Snippet,
      snippet: true,
      detail: `${what} with options`,
      doc,
      sort: '1',
    },
  ];
}

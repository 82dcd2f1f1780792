/**
 * Completions in a resource's `properties` block (a property's type: the built-in types, then
 * the resources as relations) and `operations` block (the operation kinds, bare or with a block
 * of options).
 */
import { CompletionItemKind } from 'vscode-languageserver';
import { OPERATION_KINDS, PROPERTY_TYPES } from '../../grammar/catalogue/index.js';
import { opKindMarkdown, propertyTypeMarkdown } from '../docs.js';
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
  return OPERATION_KINDS.flatMap((k) => {
    const doc = opKindMarkdown(k);
    return [
      { label: k, text: k, kind: CompletionItemKind.Method, detail: 'operation kind', doc, sort: '0' },
      {
        label: `${k} { … }`,
        text: `${k} {\n\t$0\n}`,
        kind: CompletionItemKind.Snippet,
        snippet: true,
        detail: 'operation with options',
        doc,
        sort: '1',
      },
    ];
  });
}

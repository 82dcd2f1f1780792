/**
 * Completion items, decided from the scope around the cursor (cursor-context.ts) and the option
 * catalogue: at the top level the declarations (top-level.ts); in a block the keys it allows and
 * does not hold yet (keys.ts); after a key the values its type admits (values.ts); in a resource's
 * `properties`, `operations` and `graphql` blocks the types and kinds (resource-blocks.ts). Inside a security
 * expression the expression's own completions (../expressions.ts) answer instead. This module
 * dispatches by scope and places the items: the range they replace, a missing colon, the sort.
 */
import { InsertTextFormat, MarkupKind, type CompletionItem, type Position, type TextEdit } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Analysis } from '../analysis.js';
import { expressionCompletions } from '../expressions.js';
import { toOffset, toRange } from '../ranges.js';
import { completionContext, type Tok } from './cursor-context.js';
import { declaredNames, knownModel, type Env } from './env.js';
import type { Item } from './item.js';
import { keyItems } from './keys.js';
import { graphQlKindItems, operationKindItems, propertyTypeItems } from './resource-blocks.js';
import { topItems, topMemberItems } from './top-level.js';
import { arrayItems, valuesForKey } from './values.js';

const TRIGGER_SUGGEST = { title: 'Suggest', command: 'editor.action.triggerSuggest' };

/** The key and whether its colon is written, when the member under the cursor is `key:` or `key`. */
function keyOfMember(member: Tok[]): { key: Tok; colon: boolean } | undefined {
  const [key, second] = member;
  if (!key || (key.kind !== 'word' && key.kind !== 'string')) return undefined;
  if (member.length === 1) return { key, colon: false };
  if (member.length === 2 && second.text === ':') return { key, colon: true };
  return undefined;
}

/** The items for the cursor's scope, and where to insert a colon the key lacks. */
function itemsAt(env: Env): { items: Item[]; colonAt?: number } {
  const { scope, member } = env.ctx;
  if (scope.kind === 'top') return member.length === 0 ? { items: topItems(env) } : topMemberItems(member, env);
  if (scope.kind === 'array') return member.length === 0 ? { items: arrayItems(scope, env) } : { items: [] };
  if (scope.kind === 'operations')
    return member.length === 0 ? { items: scope.graphql ? graphQlKindItems() : operationKindItems() } : { items: [] };
  if (member.length === 0) return { items: keyItems(scope, env) };
  const kv = keyOfMember(member);
  if (!kv) return { items: [] };
  const colonAt = kv.colon ? undefined : kv.key.end;
  if (scope.kind === 'properties') return { items: propertyTypeItems(env), colonAt };
  if (scope.kind === 'unknown') return { items: [] };
  return { items: valuesForKey(scope, kv.key.value, env), colonAt };
}

export function completions(doc: TextDocument, analysis: Analysis | undefined, position: Position): CompletionItem[] {
  const text = doc.getText();
  const offset = toOffset(doc, position);
  const ctx = completionContext(text, offset);
  if (!ctx) return [];
  const env: Env = {
    ctx,
    model: knownModel(
      text,
      offset,
      ctx.scope.kind === 'top' ? { start: 0, end: text.length } : ctx.window,
      analysis?.result.model,
    ),
    declared: declaredNames(text),
  };
  const inExpression = expressionCompletions(doc, ctx, offset, env.model);
  if (inExpression) return inExpression;
  const { items, colonAt } = itemsAt(env);
  const range = toRange(doc, ctx.replace);
  const inString = ctx.current?.kind === 'string';
  // A missing colon is inserted after the key by a separate edit, or with the value when the
  // value touches the key; `key:value` with no blank keeps one after the colon.
  const separate = colonAt !== undefined && colonAt < ctx.replace.start;
  let lead = ctx.charBefore === ':' ? ' ' : '';
  if (colonAt !== undefined && !separate) lead = ': ';
  const colonEdit: TextEdit[] = separate
    ? [{ range: toRange(doc, { start: colonAt, end: colonAt }), newText: ':' }]
    : [];
  const seen = new Set<string>();
  return items
    .filter((i) => !seen.has(i.label) && seen.add(i.label))
    .map((i) => {
      const newText = lead + i.text;
      const item: CompletionItem = {
        label: i.label,
        kind: i.kind,
        textEdit: { range, newText },
        insertTextFormat: i.snippet ? InsertTextFormat.Snippet : InsertTextFormat.PlainText,
      };
      if (i.detail) item.detail = i.detail;
      if (i.doc) item.documentation = { kind: MarkupKind.Markdown, value: i.doc };
      item.sortText = `${i.sort ?? '1'}${i.label}`;
      if (inString || lead) item.filterText = inString ? i.text : i.label;
      if (colonEdit.length) item.additionalTextEdits = colonEdit;
      if (i.retrigger) item.command = TRIGGER_SUGGEST;
      return item;
    });
}

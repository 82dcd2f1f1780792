/** Snippet text: a value's placeholder by its type, a record with its required fields, a block. */
import { CompletionItemKind } from 'vscode-languageserver';
import type { ValueType } from '../../grammar/catalogue/index.js';
import type { Scope } from './cursor-context.js';
import { propertyNames, type Env } from './env.js';
import { quote, type Item } from './item.js';

/** Escapes text for a snippet. */
export const esc = (s: string): string => s.replace(/[$}\\]/g, (c) => `\\${c}`);

/** The placeholder `n` for a value of a type: a choice of words, brackets, quotes. */
export function snippetFor(type: ValueType | undefined, n = 1): string {
  switch (type?.kind) {
    case 'bool':
      return `\${${n}|true,false|}`;
    case 'enum':
      return `\${${n}|${type.values.map((v) => quote(v).replace(/[,|]/g, (c) => `\\${c}`)).join(',')}|}`;
    case 'list':
      return `[$${n}]`;
    case 'oneOf':
      return type.of[0]?.kind === 'list' ? `[$${n}]` : `$${n}`;
    case 'record':
    case 'map':
    case 'phpArray':
      return `{ $${n} }`;
    case 'string':
    case 'uriTemplate':
    case 'codeRef':
    case 'expression':
    case 'httpMethod':
      return `"$${n}"`;
    default:
      return `$${n}`;
  }
}

/** `{ … }` with the record's required fields; a `field` offers the properties in scope. */
export function recordSnippet(type: Extract<ValueType, { kind: 'record' }>, env: Env, scope: Scope): string {
  let n = 0;
  const parts = Object.entries(type.fields)
    .filter(([, f]) => f.required)
    .map(([name, f]) => {
      n++;
      if (name === 'field') {
        const props = propertyNames(env, scope);
        return props.length ? `field: "\${${n}|${props.map(esc).join(',')}|}"` : `field: "\${${n}:id}"`;
      }
      return `${name}: ${snippetFor(f.type, n)}`;
    });
  return parts.length ? `{ ${parts.join(', ')} }` : '{ $1 }';
}

/** `name {` … `}` on lines of their own, `body` inside. */
export const blockItem = (name: string, doc: string, body = '$0'): Item => ({
  label: name,
  text: `${name} {\n\t${body}\n}`,
  kind: CompletionItemKind.Module,
  snippet: true,
  detail: `${name} { … }`,
  doc,
  sort: '0',
});

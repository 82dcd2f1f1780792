/**
 * Editor help inside security expression strings (`security: "is_granted('ROLE_…') and …"`):
 * completion of the callable functions, the variables, the operation's URI variables, the members
 * of `user` and `request`, and inside a quoted argument the roles the file names (role_hierarchy
 * keys and values, and ROLE_* words of its security strings); hover shows a function's or a
 * variable's doc.
 */
import { CompletionItemKind, InsertTextFormat, MarkupKind, type CompletionItem } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type * as A from '../grammar/ast.js';
import { OPERATION_KINDS } from '../grammar/catalogue/index.js';
import {
  PROPERTY_SECURITY_CONSTRAINTS,
  SECURITY_OPTIONS,
  memberTarget,
  operationUriVariables,
} from '../grammar/checker/rules/security.js';
import {
  EXPRESSION_FUNCTIONS,
  EXPRESSION_VARIABLES,
  parseExpression,
  walkExpression,
  type ExprNode,
} from '../grammar/expression.js';
import { configEntry, type ApiModel, type ModelResource } from '../grammar/model.js';
import { placeholders } from '../grammar/naming.js';
import { StringOffsets } from '../grammar/string-offsets.js';
import type { CompletionContext } from './completion/cursor-context.js';
import { keyType } from './completion/cursor-context.js';
import { toRange } from './ranges.js';

/** Members an expression may read on the variables whose shape is known. */
const MEMBERS: Record<string, Record<string, string>> = {
  user: {
    identifier: "The user's identifier (the token's `sub`, or what the authenticator returned).",
    roles: 'The roles the credentials carry (before the hierarchy).',
    claims: 'The JWT payload, or what the authenticator returned.',
  },
  request: {
    method: 'The HTTP method.',
    path: 'The request path.',
    query: 'The query parameters.',
    headers: 'The headers, by lower-case name.',
  },
};

const functionDoc = (name: string): string => {
  const f = EXPRESSION_FUNCTIONS[name];
  return `\`${name}(${f.params})\` — ${f.doc}`;
};
const variableDoc = (name: string): string => `\`${name}\` — ${EXPRESSION_VARIABLES[name]}`;
const uriVariableDoc = (name: string): string => `\`${name}\` — a URI variable of the route (a string).`;

/** Completion items when the cursor is inside a security expression string; undefined otherwise. */
export function expressionCompletions(
  doc: TextDocument,
  ctx: CompletionContext,
  offset: number,
  model: ApiModel | undefined,
): CompletionItem[] | undefined {
  const current = ctx.current;
  if (current?.kind !== 'string' || offset <= current.start) return undefined;
  const closed = current.text.length >= 2 && current.text.endsWith('"') && !current.text.endsWith('\\"');
  if (closed && offset >= current.end) return undefined;
  const [key, colon] = ctx.member;
  if (!key || colon?.text !== ':' || ctx.member.length !== 2) return undefined;
  if (keyType(ctx.scope, key.value)?.type.kind !== 'expression') return undefined;

  const text = doc.getText();
  const before = decodePrefix(text.slice(current.start + 1, offset));
  let wordStart = offset;
  while (wordStart > current.start + 1 && /[A-Za-z0-9_]/.test(text[wordStart - 1])) wordStart--;
  const range = toRange(doc, { start: wordStart, end: offset });
  const item = (
    label: string,
    kind: CompletionItemKind,
    detail: string,
    doc?: string,
    snippet?: string,
  ): CompletionItem => ({
    label,
    kind,
    detail,
    ...(doc ? { documentation: { kind: MarkupKind.Markdown, value: doc } } : {}),
    textEdit: { range, newText: snippet ?? label },
    insertTextFormat: snippet ? InsertTextFormat.Snippet : InsertTextFormat.PlainText,
  });

  if (insideQuotedArgument(before)) {
    return roleNames(text, model).map((r) =>
      item(r, CompletionItemKind.Constant, r.startsWith('ROLE_') ? 'role' : 'attribute'),
    );
  }
  const word = before.slice(0, before.length - (offset - wordStart));
  const itemMembers = objectMemberCompletions(word, ctx, model);
  if (itemMembers) {
    return itemMembers.map(([name, detail]) => item(name, CompletionItemKind.Field, detail));
  }
  const member = /([A-Za-z_][A-Za-z0-9_]*)\s*\??\.\s*$/.exec(word);
  if (member) {
    const members = MEMBERS[member[1]] ?? {};
    return Object.entries(members).map(([name, d]) => item(name, CompletionItemKind.Field, `${member[1]}.${name}`, d));
  }
  const out: CompletionItem[] = [];
  for (const [name, f] of Object.entries(EXPRESSION_FUNCTIONS)) {
    const args = f.maxArgs === 0 ? '()' : "('${1:ROLE_USER}')";
    out.push(item(name, CompletionItemKind.Function, `${name}(${f.params})`, functionDoc(name), `${name}${args}`));
  }
  for (const name of Object.keys(EXPRESSION_VARIABLES))
    out.push(item(name, CompletionItemKind.Variable, 'variable', variableDoc(name)));
  for (const name of uriVariablesInScope(ctx, model)) {
    if (!(name in EXPRESSION_VARIABLES))
      out.push(item(name, CompletionItemKind.Variable, 'URI variable', uriVariableDoc(name)));
  }
  return out;
}

/**
 * After `object.` or `previous_object.shop.` (a dotted path through to-one relations): the properties of the
 * resource reached, as [name, detail] pairs; undefined when the text before the cursor is no such path.
 */
function objectMemberCompletions(
  word: string,
  ctx: CompletionContext,
  model: ApiModel | undefined,
): [string, string][] | undefined {
  const path = /(?:^|[^A-Za-z0-9_.?])((?:[A-Za-z_][A-Za-z0-9_]*\s*\??\.\s*)+)$/.exec(word)?.[1];
  const names = path?.split(/\s*\??\.\s*/).filter((n) => n !== '');
  if (!names || !['object', 'previous_object'].includes(names[0])) return undefined;
  const resource = ctx.scope.resource ? model?.resources.get(ctx.scope.resource) : undefined;
  const reached = resource && model ? memberTarget(model, resource, names.slice(1)) : undefined;
  if (!reached || !('resource' in reached)) return [];
  return [...reached.resource.properties.values()].map((p) => [
    p.name,
    `${reached.resource.name}.${p.name}${p.type ? `: ${p.type}${p.array ? '[]' : ''}` : ''}`,
  ]);
}

/** The value typed so far, JSON escapes decoded where complete. */
function decodePrefix(raw: string): string {
  const decode = (e: string): string =>
    e[0] === 'u' ? String.fromCharCode(parseInt(e.slice(1), 16)) : JSON.parse(`"\\${e}"`);
  return raw.replace(/\\(u[0-9a-fA-F]{4}|["\\/bfnrt])/g, (_, e: string) => decode(e));
}

/** Whether an expression prefix ends inside a quoted string (an argument being typed). */
function insideQuotedArgument(prefix: string): boolean {
  let quote: string | undefined;
  for (let i = 0; i < prefix.length; i++) {
    const c = prefix[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
  }
  return quote !== undefined;
}

function uriVariablesInScope(ctx: CompletionContext, model: ApiModel | undefined): string[] {
  const resource = ctx.scope.resource ? model?.resources.get(ctx.scope.resource) : undefined;
  if (!resource) return [];
  const opKind = ctx.scope.opKind;
  const ops =
    ctx.scope.kind === 'operation' && opKind && (OPERATION_KINDS as readonly string[]).includes(opKind)
      ? resource.operations.filter((o) => o.kind === opKind)
      : resource.operations;
  // The line being typed may hide its operation from the model: the item route is the best guess then.
  if (!ops.length) return resource.itemPath ? placeholders(resource.itemPath) : [];
  return [...new Set(ops.flatMap(operationUriVariables))];
}

/** Attributes is_granted always knows (Symfony's AuthenticatedVoter). */
const BUILT_IN_ATTRIBUTES = [
  'PUBLIC_ACCESS',
  'IS_AUTHENTICATED',
  'IS_AUTHENTICATED_FULLY',
  'IS_AUTHENTICATED_REMEMBERED',
];

/** role_hierarchy's keys and values, every ROLE_* word of the file, the attributes its expressions test, the built-in ones. */
function roleNames(text: string, model: ApiModel | undefined): string[] {
  const roles = new Set<string>();
  const hierarchy = configEntry(model?.config, 'security.role_hierarchy')?.value;
  if (hierarchy?.kind === 'object') {
    for (const e of hierarchy.entries) {
      roles.add(e.key.text);
      if (e.value?.kind === 'array') for (const v of e.value.items) if (v.kind === 'string') roles.add(v.value);
    }
  }
  for (const m of text.matchAll(/\bROLE_[A-Za-z0-9_]+/g)) roles.add(m[0]);
  // The attributes the file's expressions already ask about (voter attributes such as 'EDIT' too).
  for (const value of model ? expressionStrings(model) : []) {
    const parsed = parseExpression(value.value);
    if (!parsed.ok) continue;
    walkExpression(parsed.ast, (n) => {
      const first = n.kind === 'call' && (n.name === 'is_granted' || n.name === 'has_role') ? n.args[0] : undefined;
      if (first?.kind === 'constant' && typeof first.value === 'string') roles.add(first.value);
    });
  }
  for (const a of BUILT_IN_ATTRIBUTES) roles.add(a);
  return [...roles];
}

/** Every security expression string of the model. */
function expressionStrings(model: ApiModel): A.StringValue[] {
  const out: A.StringValue[] = [];
  const add = (v: A.Value | undefined): void => {
    if (v?.kind === 'string') out.push(v);
  };
  const fromResource = (r: ModelResource): void => {
    for (const name of SECURITY_OPTIONS) add(r.options.get(name)?.value);
    for (const op of r.operations) for (const name of SECURITY_OPTIONS) add(op.options.get(name)?.value);
    for (const p of r.properties.values())
      for (const name of PROPERTY_SECURITY_CONSTRAINTS) add(p.constraints.get(name)?.value);
  };
  for (const r of model.resources.values()) fromResource(r);
  return out;
}

/** Hover on a function or variable inside a security expression: its doc and its range in the text. */
export function expressionHover(
  model: ApiModel,
  text: string,
  offset: number,
): { markdown: string; range: A.Range } | undefined {
  const value = expressionStrings(model).find((v) => v.range.start < offset && offset < v.range.end);
  if (!value) return undefined;
  const parsed = parseExpression(value.value);
  if (!parsed.ok) return undefined;
  const offsets = new StringOffsets(text, value.range);
  const at = offsets.toValue(offset);
  let found: { markdown: string; start: number; end: number } | undefined;
  walkExpression(parsed.ast, (n: ExprNode) => {
    if (n.kind === 'call' && n.start <= at && at <= n.nameEnd && Object.hasOwn(EXPRESSION_FUNCTIONS, n.name)) {
      found = { markdown: functionDoc(n.name), start: n.start, end: n.nameEnd };
    } else if (n.kind === 'name' && n.start <= at && at <= n.end) {
      const doc = Object.hasOwn(EXPRESSION_VARIABLES, n.name) ? variableDoc(n.name) : uriVariableDoc(n.name);
      found = { markdown: doc, start: n.start, end: n.end };
    } else if (
      n.kind === 'member' &&
      n.nameStart <= at &&
      at <= n.end &&
      n.object.kind === 'name' &&
      MEMBERS[n.object.name]?.[n.property]
    ) {
      found = {
        markdown: `\`${n.object.name}.${n.property}\` — ${MEMBERS[n.object.name][n.property]}`,
        start: n.nameStart,
        end: n.end,
      };
    }
  });
  return found && { markdown: found.markdown, range: offsets.rangeInText(found.start, found.end) };
}

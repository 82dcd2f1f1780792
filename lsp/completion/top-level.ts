/**
 * Completions between declarations: a snippet per declaration (`api` and `config` only while the
 * file has none), and inside a declaration's head the filter kinds (`filter name: |`) and a
 * mutator's target.
 */
import { CompletionItemKind } from 'vscode-languageserver';
import { FILTER_KINDS } from '../../grammar/catalogue/index.js';
import { allOperations } from '../../grammar/model.js';
import { filterKindMarkdown } from '../docs.js';
import type { Tok } from './cursor-context.js';
import { resourceNames, type Env } from './env.js';
import { quote, type Item } from './item.js';
import { blockItem } from './snippets.js';

/** The declarations to start at the top level. */
export function topItems(env: Env): Item[] {
  const items: Item[] = [
    {
      label: 'resource',
      text: 'resource ${1:Name} {\n\tproperties {\n\t\tid: int { identifier: true }\n\t\t$2\n\t}\n\toperations {\n\t\tGetCollection\n\t\tPost\n\t\tGet\n\t\tPatch\n\t\tDelete\n\t}\n}',
      kind: CompletionItemKind.Class,
      snippet: true,
      detail: 'resource Name { properties { … } operations { … } }',
      doc: 'A resource: its properties and operations.',
    },
    {
      label: 'filter',
      text: `filter \${1:name}: \${2|${FILTER_KINDS.map((k) => k.name).join(',')}|} { properties: [\${3}] }`,
      kind: CompletionItemKind.Function,
      snippet: true,
      detail: 'filter name: kind { properties: [ … ] }',
      doc: `A named filter; kinds: ${FILTER_KINDS.map((k) => k.name).join(', ')}.`,
    },
    {
      label: 'mutator',
      text: 'mutator ${1|resource,operation|} ${2:target}: "./${3:mutators}.mjs#${4:export}"',
      kind: CompletionItemKind.Event,
      snippet: true,
      detail: 'mutator resource|operation target: "./file.mjs#export"',
      doc: 'A metadata mutator, run once at load.',
    },
  ];
  // `api` and `config` once a file; the word being typed may itself parse as that declaration.
  const declared = new Set(env.model?.document.declarations.map((d) => d.kind));
  if (!declared.has('api') || env.ctx.current?.value === 'api') {
    items.unshift({
      label: 'api',
      text: 'api "${1:Title}" { version: "${2:1.0.0}" }',
      kind: CompletionItemKind.Module,
      snippet: true,
      detail: 'api "Title" { version: … }',
      doc: 'The API header (once).',
    });
  }
  if (!declared.has('config') || env.ctx.current?.value === 'config') {
    items.unshift({
      ...blockItem(
        'config',
        'Global settings (snake_case), e.g. `defaults { pagination_items_per_page: 30 }`.',
        'patch_formats: ["application/merge-patch+json"]$0',
      ),
      kind: CompletionItemKind.Module,
    });
  }
  return items;
}

/**
 * Inside a declaration's head (`member`, the tokens before the cursor): the filter kinds after
 * `filter name:` (or after `filter name`, with the colon to insert at `colonAt`), and after
 * `mutator` its target kind, then the resources or operations it may target.
 */
export function topMemberItems(member: Tok[], env: Env): { items: Item[]; colonAt?: number } {
  const words = member.map((t) => t.text);
  if (words[0] === 'filter') {
    const kinds = FILTER_KINDS.map((k) => ({
      label: k.name,
      text: k.name,
      kind: CompletionItemKind.TypeParameter,
      detail: 'filter kind',
      doc: filterKindMarkdown(k),
    }));
    if (words.length === 3 && words[2] === ':') return { items: kinds };
    if (words.length === 2 && member[1].kind === 'word') return { items: kinds, colonAt: member[1].end };
  }
  if (words[0] === 'mutator') return { items: mutatorTargetItems(words, env) };
  return { items: [] };
}

function mutatorTargetItems(words: string[], env: Env): Item[] {
  if (words.length === 1)
    return ['resource', 'operation'].map((w) => ({ label: w, text: w, kind: CompletionItemKind.Keyword }));
  if (words.length === 2 && words[1] === 'resource')
    return resourceNames(env).map((r) => ({ label: r, text: r, kind: CompletionItemKind.Class, detail: 'resource' }));
  if (words.length === 2 && words[1] === 'operation' && env.model)
    return allOperations(env.model).map((o) => ({
      label: o.name,
      text: quote(o.name),
      kind: CompletionItemKind.Method,
      detail: `${o.method ?? '?'} ${o.path}`,
    }));
  return [];
}

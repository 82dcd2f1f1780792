/** Top-level declarations: the api header, single api/config, unique resource and filter names, mutators. */
import * as A from '../../ast.js';
import { allOperations } from '../../model.js';
import type { CheckContext } from '../check-context.js';
import { checkCodeRef, checkValue } from '../value-types.js';

const API_FIELDS = { version: { kind: 'string' }, description: { kind: 'string' }, title: { kind: 'string' } } as const;

export function checkDeclarations(ctx: CheckContext): void {
  const doc = ctx.model.document;
  for (const kind of ['api', 'config'] as const) {
    const decls = doc.declarations.filter((d) => d.kind === kind);
    for (const d of decls.slice(1))
      ctx.report(
        'duplicate-declaration',
        d.range,
        `'${kind}' may be declared only once; the first is on an earlier line`,
      );
  }
  for (const api of doc.declarations.filter((d): d is A.ApiDecl => d.kind === 'api')) {
    if (!api.body) continue;
    ctx.duplicateKeys(api.body.entries, 'field');
    for (const e of api.body.entries) {
      const type = API_FIELDS[e.key.text as keyof typeof API_FIELDS];
      if (type) checkValue(ctx, e.value, type, `'${e.key.text}'`);
      else
        ctx.unknown(
          'unknown-option',
          e.key,
          'api field',
          Object.keys(API_FIELDS),
          '; expected version, description or title',
        );
    }
  }
  duplicates(
    ctx,
    A.resources(doc).map((r) => r.name),
    'duplicate-resource',
    'resource',
  );
  duplicates(
    ctx,
    A.filters(doc).map((f) => f.name),
    'duplicate-filter',
    'filter',
  );
  for (const m of A.mutators(doc)) checkMutator(ctx, m);
}

function duplicates(
  ctx: CheckContext,
  names: (A.Name | undefined)[],
  code: 'duplicate-resource' | 'duplicate-filter',
  what: string,
): void {
  const seen = new Set<string>();
  for (const n of names) {
    if (!n) continue;
    if (seen.has(n.text)) ctx.report(code, n.range, `${what} '${n.text}' is declared twice`);
    seen.add(n.text);
  }
}

function checkMutator(ctx: CheckContext, m: A.MutatorDecl): void {
  if (m.ref) checkCodeRef(ctx, m.ref.value, m.ref.range, 'a mutator', []);
  if (!m.targetKind || !m.target) return;
  if (m.targetKind.text === 'resource') {
    if (!ctx.model.resources.has(m.target.text))
      ctx.unknown('unknown-resource', m.target, 'resource', ctx.model.resources.keys());
  } else if (m.targetKind.text === 'operation') {
    const names = allOperations(ctx.model).map((o) => o.name);
    if (!names.includes(m.target.text))
      ctx.unknown(
        'unknown-operation',
        m.target,
        'operation',
        names,
        `; operation mutators name an operation by its name (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''})`,
      );
  } else {
    ctx.report(
      'invalid-mutator',
      m.targetKind.range,
      `a mutator targets 'resource' or 'operation', not '${m.targetKind.text}'`,
      ['resource', 'operation'].find((w) => w[0] === m.targetKind!.text[0]),
    );
  }
}

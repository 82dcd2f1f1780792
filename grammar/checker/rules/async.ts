/**
 * Mercure and Messenger across the file: options accepted but unsupported (warned, also for other options' unsupported values), `mercure` without a
 * hub (no effect), resources dispatched to the message bus without a handler, and `messenger.routing` /
 * `messenger.handlers` keys that name no resource.
 */
import type * as A from '../../ast.js';
import { optionByName } from '../../catalogue/index.js';
import { configEntry, wordOf, type ModelResource } from '../../model.js';
import type { CheckContext } from '../check-context.js';

export function checkAsync(ctx: CheckContext): void {
  const hub = configEntry(ctx.model.config, 'mercure.hub')?.value;
  const handlers = configEntry(ctx.model.config, 'messenger.handlers')?.value;
  const handled = new Set(handlers?.kind === 'object' ? handlers.entries.map((e) => e.key.text) : []);
  for (const resource of ctx.model.resources.values()) {
    let dispatched: A.Entry | undefined;
    for (const e of optionEntries(resource)) {
      const spec = optionByName(e.key.text);
      const value = e.value;
      const unsupported = spec?.unsupported;
      if (
        unsupported &&
        value &&
        (!unsupported.valueKinds || unsupported.valueKinds.includes(value.kind)) &&
        (!unsupported.values || (value.kind === 'number' && unsupported.values.includes(value.value)))
      ) {
        ctx.report('not-supported', e.key.range, `'${e.key.text}': ${unsupported.message}`);
      }
      if (e.key.text === 'mercure' && !hub && !(value?.kind === 'bool' && !value.value)) {
        ctx.report(
          'option-ineffective',
          e.key.range,
          '\'mercure\' has no effect: no hub is set (add config { mercure { hub: "builtin" } })',
        );
      }
      const dispatches = (value?.kind === 'bool' && value.value) || ['input', 'persist'].includes(wordOf(value) ?? '');
      if (e.key.text === 'messenger' && dispatches) dispatched ??= e;
    }
    if (dispatched && !handled.has(resource.name)) {
      ctx.report(
        'messenger-no-handler',
        dispatched.key.range,
        `'${resource.name}' is dispatched to the message bus but has no handler: add config { messenger { handlers { ${resource.name}: "./handlers.mjs#on${resource.name}" } } }`,
      );
    }
  }
  for (const path of ['messenger.routing', 'messenger.handlers']) {
    const block = configEntry(ctx.model.config, path)?.value;
    if (block?.kind !== 'object') continue;
    for (const e of block.entries) {
      if (!ctx.model.resources.has(e.key.text))
        ctx.unknown('unknown-resource', e.key, 'message class (resource)', [...ctx.model.resources.keys()]);
    }
  }
}

/** The resource's option entries, then each declared operation's. */
function* optionEntries(resource: ModelResource): Iterable<A.Entry> {
  yield* resource.decl.options;
  for (const op of resource.operations) if (op.decl?.body) yield* op.decl.body.entries;
}

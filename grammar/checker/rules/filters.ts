/** `filter name: kind { properties: … }`: the kind exists and the block is well typed. */
import { FILTER_KINDS, filterKind } from '../../catalogue/index.js';
import type { CheckContext } from '../check-context.js';
import { checkValue } from '../value-types.js';

export function checkFilters(ctx: CheckContext): void {
  for (const { decl: f } of ctx.model.filters.values()) {
    if (!f.filterKind) continue;
    const kind = filterKind(f.filterKind.text);
    if (!kind) {
      ctx.unknown(
        'unknown-filter-kind',
        f.filterKind,
        'filter kind',
        FILTER_KINDS.map((k) => k.name),
        `; kinds are ${FILTER_KINDS.map((k) => k.name).join(', ')}`,
      );
      continue;
    }
    if (!f.body) {
      ctx.report('invalid-value', f.range, `filter '${f.name?.text}' needs a block with 'properties'`);
      continue;
    }
    checkValue(ctx, f.body, { kind: 'record', fields: kind.fields }, `filter '${f.name?.text}'`);
  }
}

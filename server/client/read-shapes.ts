/**
 * The shapes of JSON:API reads in a generated client (docs/client.md, "Formats"): per output type read, what
 * `include` and `fields` may name and what the items then hold (runtime.ts `Shape`, `Reading`, `Read`). A relation
 * can be included where the server includes it (pipeline/representation/jsonapi-query.ts, stages/include.ts): shown
 * by the operation, its target read by an item Get that runs under no guard of its own; an included item has the
 * shape of that Get's output.
 */
import { itemOperation } from '../protocol/iri.js';
import { shownProperties } from '../metadata/property-access.js';
import type { ApiMetadata, OperationMetadata } from '../metadata/types.js';
import { isGuarded } from '../pipeline/guards.js';
import { key, type ItemTypes } from './item-types.js';

export class ReadShapes {
  constructor(
    private readonly api: ApiMetadata,
    /** Where the shapes are declared, beside the item types they name. */
    private readonly types: ItemTypes,
  ) {}

  /** The shape of what the operation answers: named after its output type (`ItemShape`). */
  of(op: OperationMetadata): string {
    const output = this.types.output(op);
    return this.types.declare(`${output}Shape`, () => this.shape(op, output));
  }

  private shape(op: OperationMetadata, output: string): string {
    const relations: string[] = [];
    for (const p of shownProperties(op, this.api.settings)) {
      const target = p.relation === undefined ? undefined : this.api.resource(p.relation);
      const via = target && itemOperation(target);
      // Fails closed as the server does: a target read under guards is refused (400), so it is no include path.
      if (!via || isGuarded(via, this.api.settings) || target.properties.some((t) => t.security)) continue;
      relations.push(`    ${key(p.name)}: ${this.of(via)};`);
    }
    const id = op.resource.identifier ? JSON.stringify(op.resource.identifier.name) : 'never';
    return (
      `/** What a JSON:API read of ${output} may include and keep. */\nexport interface ${output}Shape {\n` +
      `  type: ${JSON.stringify(op.resource.shortName)};\n  id: ${id};\n  item: ${output};\n` +
      `  relations: {${relations.length ? `\n${relations.join('\n')}\n  ` : ''}};\n}\n`
    );
  }
}

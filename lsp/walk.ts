/**
 * Walking the AST with the catalogue's types: every option entry with where it stands, and
 * the values inside an option's value with the type the catalogue gives each of them.
 */
import type * as A from '../grammar/ast.js';
import { optionByName, type OptionSpec, type ValueType } from '../grammar/catalogue/index.js';
import type { ApiModel, ModelOperation, ModelResource } from '../grammar/model.js';
import { valueMatchesShape } from '../grammar/checker/value-types.js';

export interface OptionEntry {
  entry: A.Entry;
  spec: OptionSpec | undefined;
  resource: ModelResource;
  /** Undefined for a resource-level option. */
  operation: ModelOperation | undefined;
}

/** Every option entry of every resource and declared operation. */
export function optionEntries(model: ApiModel): OptionEntry[] {
  const out: OptionEntry[] = [];
  for (const resource of model.resources.values()) {
    for (const entry of resource.decl.options)
      out.push({ entry, spec: optionByName(entry.key.text), resource, operation: undefined });
    for (const operation of resource.operations) {
      for (const entry of operation.decl?.body?.entries ?? [])
        out.push({ entry, spec: optionByName(entry.key.text), resource, operation });
    }
  }
  return out;
}

/** A key of an object value, the type of its value and its own doc, when the type says. */
export interface TypedKey {
  entry: A.Entry;
  type: ValueType;
  doc: string | undefined;
  required: boolean;
}

/**
 * Visits a value and every value nested in it with its catalogue type, and every key of a
 * record (typed object) with its field's type and doc.
 */
export function walkTyped(
  value: A.Value | undefined,
  type: ValueType,
  visit: (value: A.Value, type: ValueType) => void,
  visitKey?: (key: TypedKey) => void,
): void {
  if (!value) return;
  if (type.kind === 'oneOf') {
    const alt = type.of.find((t) => valueMatchesShape(value, t));
    if (alt) walkTyped(value, alt, visit, visitKey);
    return;
  }
  visit(value, type);
  if (type.kind === 'list' && value.kind === 'array')
    for (const item of value.items) walkTyped(item, type.of, visit, visitKey);
  else if (type.kind === 'map' && value.kind === 'object')
    for (const e of value.entries) walkTyped(e.value, type.of, visit, visitKey);
  else if (type.kind === 'record' && value.kind === 'object') {
    for (const e of value.entries) {
      const field = type.fields[e.key.text];
      if (!field) continue;
      visitKey?.({ entry: e, type: field.type, doc: field.doc, required: field.required === true });
      walkTyped(e.value, field.type, visit, visitKey);
    }
  }
}

/**
 * Hydra vocabulary in both forms: unprefixed (`member`, the 4.x default) or `hydra:`-prefixed,
 * chosen by the global `hydra_prefix`, overridable per operation through
 * `normalizationContext: { hydra_prefix: … }` (docs/behaviour.md, "Collections and pagination").
 */
import { optionValue, perOperation } from '../metadata/options.js';
import type { OperationMetadata, Settings } from '../metadata/types.js';

export interface HydraKeys {
  prefixed: boolean;
  collectionType: string;
  member: string;
  totalItems: string;
  view: string;
  viewType: string;
  first: string;
  last: string;
  previous: string;
  next: string;
  search: string;
  iriTemplateType: string;
  template: string;
  variableRepresentation: string;
  mapping: string;
}

function hydraKeys(prefixed: boolean): HydraKeys {
  const k = (name: string): string => (prefixed ? `hydra:${name}` : name);
  return {
    prefixed,
    collectionType: k('Collection'),
    member: k('member'),
    totalItems: k('totalItems'),
    view: k('view'),
    viewType: k('PartialCollectionView'),
    first: k('first'),
    last: k('last'),
    previous: k('previous'),
    next: k('next'),
    search: k('search'),
    iriTemplateType: k('IriTemplate'),
    template: k('template'),
    variableRepresentation: k('variableRepresentation'),
    mapping: k('mapping'),
  };
}

/** Both forms, made once: callers read them, never change them. */
const BOTH_FORMS = [hydraKeys(false), hydraKeys(true)] as const;

export const operationHydraKeys = perOperation((op: OperationMetadata, settings: Settings): HydraKeys => {
  const context = optionValue(op, settings, 'normalizationContext');
  const own = context && typeof context === 'object' && !Array.isArray(context) ? context.hydra_prefix : undefined;
  return BOTH_FORMS[(typeof own === 'boolean' ? own : settings.hydraPrefix) ? 1 : 0];
});

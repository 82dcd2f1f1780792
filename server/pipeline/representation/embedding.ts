/**
 * Embedded relations (docs/behaviour.md, "Embedded relations"): which relations an operation's responses show as
 * the related objects rather than their IRIs, and how such an object is written. A relation is embedded when the
 * operation's normalization groups name a group of some property of its target (property-access.ts,
 * `embeddedProperties`, API Platform's readableLink); the embedded object shows the target's properties in those
 * groups, its own relations following the same rule, level by level. The related items are read beforehand
 * (relations/embedded-items.ts); this module only writes them.
 *
 * Along one path from the response's item: an item already being shown on the path is written as its IRI (a
 * cycle), nothing is embedded deeper than `EMBEDDING_LEVELS`, and with `enable_max_depth: true` in the
 * normalizationContext a relation with `maxDepth: N` is left out once it was met N times on the path (Symfony's
 * AbstractObjectNormalizer: one count per class and attribute).
 */
import { embeddedProperties, normalizationGroups, shownProperties } from '../../metadata/property-access.js';
import { optionValue, perOperation } from '../../metadata/options.js';
import type { ApiMetadata, OperationMetadata, PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';
import { itemIri, itemOperation } from '../../protocol/iri.js';
import type { Item } from '../../store/types.js';
import { normalizeItem, type RelationOutput } from './normalize.js';
import { itemStyle, relationOutput, type RequestPlace, type UrlStyle } from './url-generation.js';

/** The deepest level an embedded object is written at (the response's item is level 0); deeper, IRIs. */
export const EMBEDDING_LEVELS = 8;

/** A relation whose targets are embedded, and the target properties the embedded objects show. */
export interface EmbeddedRelation {
  property: PropertyMetadata;
  target: ResourceMetadata;
  shown: readonly PropertyMetadata[];
}

/** What an operation's responses embed, found once per operation. */
export class EmbeddingPlan {
  private readonly relations = new Map<ResourceMetadata, ReadonlyMap<string, EmbeddedRelation>>();
  private readonly shown = new Map<ResourceMetadata, readonly PropertyMetadata[]>();
  private reached?: ReadonlySet<ResourceMetadata>;

  constructor(
    readonly api: ApiMetadata,
    private readonly groups: readonly string[],
    /** `enable_max_depth` of the normalizationContext: `maxDepth` of relations counts. */
    readonly maxDepth: boolean,
    private readonly root: ResourceMetadata,
    rootShown: readonly PropertyMetadata[],
  ) {
    this.shown.set(root, rootShown);
  }

  /** The properties `resource`'s objects show: the operation's items', or those of embedded ones. */
  shownOf(resource: ResourceMetadata): readonly PropertyMetadata[] {
    let shown = this.shown.get(resource);
    if (!shown) this.shown.set(resource, (shown = embeddedProperties(resource, this.groups, 'output') ?? []));
    return shown;
  }

  /** The embedded relations of `resource`'s objects, by property name. */
  relationsOf(resource: ResourceMetadata): ReadonlyMap<string, EmbeddedRelation> {
    let found = this.relations.get(resource);
    if (!found) {
      const map = new Map<string, EmbeddedRelation>();
      for (const property of this.shownOf(resource)) {
        const target = property.relation ? this.api.resource(property.relation) : undefined;
        const properties = target && embeddedProperties(target, this.groups, 'output');
        if (target && properties) map.set(property.name, { property, target, shown: properties });
      }
      this.relations.set(resource, (found = map));
    }
    return found;
  }

  /** Whether the operation's responses may embed items of `resource`. */
  embeds(resource: ResourceMetadata): boolean {
    return (this.reached ??= new Set(this.targets())).has(resource);
  }

  /** Every resource whose items the operation's responses may embed. */
  targets(): ResourceMetadata[] {
    const seen = new Set<ResourceMetadata>();
    const visit = (resource: ResourceMetadata) => {
      for (const { target } of this.relationsOf(resource).values())
        if (!seen.has(target)) {
          seen.add(target);
          visit(target);
        }
    };
    visit(this.root);
    return [...seen];
  }
}

/** The operation's embedding plan; undefined when its responses embed nothing (every relation an IRI). */
export const embeddingPlan = perOperation((op: OperationMetadata, api: ApiMetadata): EmbeddingPlan | undefined => {
  const groups = normalizationGroups(op);
  if (!groups) return undefined;
  const context = optionValue(op, api.settings, 'normalizationContext') as Record<string, unknown> | undefined;
  const maxDepth = context?.enable_max_depth === true;
  const plan = new EmbeddingPlan(api, groups, maxDepth, op.resource, shownProperties(op, api.settings));
  return plan.relationsOf(op.resource).size ? plan : undefined;
});

/** Whether an operation's responses embed some related item (then they are never served from stored texts). */
export const embedsRelations = (op: OperationMetadata, api: ApiMetadata): boolean => !!embeddingPlan(op, api);

/** The related items read for a response (relations/embedded-items.ts). */
export interface EmbeddedItems {
  /** The item an IRI names: null when it names none (the IRI is shown), undefined when it was not read. */
  item(iri: string): Item | null | undefined;
  /** The properties of a read item its reader may not see (property `security`). */
  hidden(item: Item): ReadonlySet<string> | undefined;
}

/** Where an object is written: the IRIs of the items above it on its path, and the counts of `maxDepth`. */
interface PathPlace {
  iris: readonly string[];
  depths: ReadonlyMap<string, number>;
}

const NO_DEPTHS: ReadonlyMap<string, number> = new Map();

/** The relation output of the response's items, embedding the related items read in `items`. */
export class EmbeddingWriter {
  private readonly styles = new Map<ResourceMetadata, { item: UrlStyle; relation?: RelationOutput }>();

  constructor(
    private readonly plan: EmbeddingPlan,
    private readonly items: EmbeddedItems,
    private readonly jsonld: boolean,
    private readonly at: RequestPlace,
    /** The IRIs of to-many members the reader may not see (pipeline/scoped-members.ts): left out. */
    private readonly hiddenMembers?: ReadonlySet<string>,
  ) {}

  /**
   * The relation output of one item of the response (`hidden`: what its reader may not see of it): embedded
   * objects for its embedded relations, its other relations as `fallback` writes them.
   */
  relationsFor(
    resource: ResourceMetadata,
    item: Item,
    hidden: ReadonlySet<string> | undefined,
    fallback?: RelationOutput,
  ): RelationOutput {
    // The item's own IRI heads the path only where an embedded item could be it (its resource is a target).
    const iri =
      resource.identifier && this.plan.embeds(resource) ? itemIri(resource, item, itemOperation(resource)) : '';
    return this.output(resource, { iris: [iri], depths: NO_DEPTHS }, hidden, fallback);
  }

  private output(
    resource: ResourceMetadata,
    place: PathPlace,
    hidden: ReadonlySet<string> | undefined,
    fallback: RelationOutput | undefined,
  ): RelationOutput {
    const embedded = this.plan.relationsOf(resource);
    const { reached, depthsBelow } = this.maxDepths(resource, place.depths, hidden);
    const hiddenMembers = this.hiddenMembers;
    return (property, stored) => {
      if (reached?.has(property.name)) return undefined;
      const value =
        hiddenMembers?.size && Array.isArray(stored)
          ? stored.filter((v) => typeof v !== 'string' || !hiddenMembers.has(v))
          : stored;
      const relation = embedded.get(property.name);
      const plain = (v: unknown) => (fallback ? fallback(property, v) : v);
      if (!relation || place.iris.length > EMBEDDING_LEVELS) return plain(value);
      const depths = depthsBelow?.get(property.name) ?? place.depths;
      const one = (iri: unknown): unknown => {
        const related = typeof iri === 'string' ? this.items.item(iri) : undefined;
        // Not read, dangling, or already shown on this path (a cycle): its IRI.
        if (!related || place.iris.includes(iri as string)) return plain(iri);
        return this.object(relation, related, iri as string, { iris: [...place.iris, iri as string], depths });
      };
      return Array.isArray(value) ? value.map(one) : one(value);
    };
  }

  /**
   * Symfony's isMaxDepthReached, as API Platform meets an object's attributes (in order, each shown one counted
   * whether null or not, its relation normalized with the counts so far): per relation with `maxDepth`, the
   * first meeting on the path counts 1, each next one adds 1, and one met when the count is its `maxDepth` is
   * left out. `depthsBelow`: the counts each relation's objects are written with.
   */
  private maxDepths(
    resource: ResourceMetadata,
    above: ReadonlyMap<string, number>,
    hidden: ReadonlySet<string> | undefined,
  ): { reached?: Set<string>; depthsBelow?: Map<string, ReadonlyMap<string, number>> } {
    const shown = this.plan.shownOf(resource);
    if (!this.plan.maxDepth || !shown.some((p) => p.maxDepth !== undefined)) return {};
    const reached = new Set<string>();
    const depthsBelow = new Map<string, ReadonlyMap<string, number>>();
    let depths = above;
    for (const p of shown) {
      if (hidden?.has(p.name)) continue;
      if (p.maxDepth !== undefined) {
        const key = `${resource.shortName}::${p.name}`;
        const count = depths.get(key);
        if (count === p.maxDepth) reached.add(p.name);
        else depths = new Map(depths).set(key, (count ?? 0) + 1);
      }
      if (p.relation) depthsBelow.set(p.name, depths);
    }
    return { reached, depthsBelow };
  }

  private object(relation: EmbeddedRelation, item: Item, iri: string, place: PathPlace): Record<string, unknown> {
    const { target, shown } = relation;
    const styles = this.stylesOf(target);
    const hidden = this.items.hidden(item);
    return normalizeItem(
      target,
      item,
      this.jsonld,
      () => styles.item(iri),
      shown,
      hidden,
      this.output(target, place, hidden, styles.relation),
    );
  }

  private stylesOf(target: ResourceMetadata): { item: UrlStyle; relation?: RelationOutput } {
    let styles = this.styles.get(target);
    if (!styles) {
      const { api } = this.plan;
      styles = { item: itemStyle(target, api.settings, this.at), relation: relationOutput(api, target, this.at) };
      this.styles.set(target, styles);
    }
    return styles;
  }
}

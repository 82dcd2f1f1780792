/**
 * What a GraphQL request may ask for (docs/graphql.md, "Transport and limits"), checked as validation rules
 * before anything runs: the selection's depth (`max_query_depth`), its number of fields (`max_query_complexity`),
 * the items its lists ask for together (MAX_QUERY_NODES), and introspection (`introspection: false` refuses
 * `__schema` and `__type`). A refusal is a GraphQL error with `extensions.status` 400.
 */
import {
  GraphQLError,
  getNamedType,
  getNullableType,
  isCompositeType,
  isIntrospectionType,
  isListType,
  isObjectType,
  Kind,
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLOutputType,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import type { GraphQlSettings } from '../metadata/types.js';
import { PAGE_SIZE } from './collections.js';

/** The rules of one request: the complexity depends on its variables (`first: $n`) and operation. */
export function limitRules(
  settings: GraphQlSettings,
  defaultPageSize: number,
  request: { variables?: Readonly<Record<string, unknown>> | null; operationName?: string | null },
): ValidationRule[] {
  const rules = [
    depthRule(settings.maxQueryDepth),
    complexityRule(
      settings.maxQueryComplexity,
      MAX_QUERY_NODES,
      defaultPageSize,
      request.variables ?? {},
      request.operationName,
    ),
  ];
  if (!settings.introspection) rules.push(noIntrospectionRule);
  return rules;
}

const refusal = (message: string, nodes?: ASTNode | readonly ASTNode[]): GraphQLError =>
  new GraphQLError(message, { nodes, extensions: { status: 400 } });

/**
 * The deepest field of each operation, fragments followed where they are spread: `{ a { b } }` has depth 2.
 * A fragment's depth is computed once (a document may spread it many times); a cycle of fragments, which
 * graphql-js refuses, counts nothing here.
 */
export function depthRule(max: number): ValidationRule {
  return (context) => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of context.getDocument().definitions)
      if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const fragmentDepths = new Map<string, number>();
    const fragmentDepth = (name: string): number => {
      const known = fragmentDepths.get(name);
      if (known !== undefined) return known;
      const fragment = fragments.get(name);
      fragmentDepths.set(name, 0); // while it is being measured: a cycle ends here
      const depth = fragment ? depthOf(fragment.selectionSet) : 0;
      fragmentDepths.set(name, depth);
      return depth;
    };
    const depthOf = (set: SelectionSetNode): number => {
      let deepest = 0;
      for (const s of set.selections) {
        let depth: number;
        if (s.kind === Kind.FIELD) depth = s.selectionSet ? 1 + depthOf(s.selectionSet) : 1;
        else if (s.kind === Kind.INLINE_FRAGMENT) depth = depthOf(s.selectionSet);
        else depth = fragmentDepth(s.name.value);
        deepest = Math.max(deepest, depth);
      }
      return deepest;
    };
    return {
      OperationDefinition(node) {
        const depth = depthOf(node.selectionSet);
        if (depth > max) context.reportError(refusal(`The query's depth ${depth} is above the limit of ${max}.`, node));
      },
    };
  };
}

/**
 * The most items the lists of one query may hold together, GitHub's node limit: each list or connection counts
 * its page times the pages of the lists around it (`a(first: 50) { b(first: 10) }` holds 50 + 50 × 10 items).
 */
export const MAX_QUERY_NODES = 500_000;

/**
 * Two bounds on the operation that runs. Its complexity is its number of fields, API Platform's count (1 a field,
 * every alias and every spread of a fragment counted, none multiplied by a page size): `max_query_complexity`
 * bounds the size of the selection. Its nodes are the items its lists ask for (MAX_QUERY_NODES): a list or a
 * connection holds the page its arguments ask for (as the collection serves it: `first`, `last`, `itemsPerPage`,
 * the page size and maximum of its operation) or else `defaultPageSize`, times the items of the lists it stands
 * in; a connection's `edges` or `collection` is the connection's page, not counted again; a list of scalars holds
 * no items. Introspection fields count 1 each and hold no items: their lists are the schema's, and graphql-js's
 * MaxIntrospectionDepthRule (one of its specified rules) refuses the nestings that would multiply them.
 */
export function complexityRule(
  max: number,
  maxNodes: number,
  defaultPageSize: number,
  variables: Readonly<Record<string, unknown>>,
  operationName: string | null | undefined,
): ValidationRule {
  const fields: ComplexityEstimator = ({ childComplexity }) => 1 + childComplexity;
  const nodes: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
    if (isIntrospectionType(type) || isIntrospectionType(getNamedType(field.type))) return 0;
    if (!holdsItems(field.type) || isConnection(type)) return childComplexity;
    return pageOf(field, args, defaultPageSize) * (1 + childComplexity);
  };
  return (context) => ({
    Document: {
      leave(document) {
        const measure = (estimator: ComplexityEstimator): number =>
          getComplexity({
            schema: context.getSchema(),
            query: document,
            estimators: [estimator],
            variables: { ...variables },
            operationName: namesOperation(document, operationName) ? operationName! : undefined,
          });
        let cost: number;
        let items: number;
        try {
          cost = measure(fields);
          items = cost > max ? 0 : measure(nodes);
        } catch (e) {
          // Variables that do not fit, or more nodes than the estimator walks: the request is refused.
          context.reportError(refusal(e instanceof GraphQLError ? e.message : "The query's cost cannot be estimated."));
          return;
        }
        if (cost > max) context.reportError(refusal(`The query's complexity ${cost} is above the limit of ${max}.`));
        else if (items > maxNodes)
          context.reportError(
            refusal(`The query's lists hold up to ${countText(items)} items, above the limit of ${maxNodes}.`),
          );
      },
    },
  });
}

const countText = (n: number): string => (Number.isSafeInteger(n) ? String(n) : 'more than 2^53');

/** The items one page of a list field holds: as its collection serves it, or the page its arguments ask for. */
function pageOf(field: GraphQLField<unknown, unknown>, args: Record<string, unknown>, defaultPageSize: number): number {
  const served = field.args.map((a) => a.extensions[PAGE_SIZE]).find((f) => typeof f === 'function');
  if (served) return (served as (args: Record<string, unknown>) => number)(args);
  const requested = [args.first, args.last, args.itemsPerPage].find((n) => typeof n === 'number' && n >= 0);
  return (requested as number | undefined) ?? defaultPageSize;
}

/** graphql-query-complexity reads `operation.name` of every operation once it is given a name: only a known one. */
const namesOperation = (document: DocumentNode, name: string | null | undefined): boolean =>
  typeof name === 'string' &&
  document.definitions.every((d) => d.kind !== Kind.OPERATION_DEFINITION || d.name !== undefined) &&
  document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === name);

/** A list of objects, or a connection. */
function holdsItems(type: GraphQLOutputType): boolean {
  const nullable = getNullableType(type);
  return (isListType(nullable) && isCompositeType(getNamedType(nullable))) || isConnection(nullable);
}

/** A Relay cursor connection (`edges`) or API Platform's page connection (`collection`). */
const isConnection = (type: GraphQLOutputType | GraphQLCompositeType): boolean =>
  isObjectType(type) && (type.getFields().edges !== undefined || type.getFields().collection !== undefined);

/**
 * `introspection: false`: the fields whose type is the schema's description (`__schema`, `__type`) are refused,
 * as graphql-js's NoSchemaIntrospectionCustomRule does, once each (not again for the fields inside them) and with
 * our refusal's status. `__typename` stays allowed.
 */
export const noIntrospectionRule: ValidationRule = (context) => ({
  Field(node) {
    const type = getNamedType(context.getType());
    const parent = context.getParentType();
    if (type && isIntrospectionType(type) && !(parent && isIntrospectionType(parent)))
      context.reportError(
        refusal(`GraphQL introspection is disabled here: "${node.name.value}" cannot be queried.`, node),
      );
  },
});

/**
 * What a GraphQL request may ask for (docs/graphql.md, "Transport and limits"), checked as validation rules
 * before anything runs: the selection's depth (`max_query_depth`), its estimated cost (`max_query_complexity`),
 * and introspection (`introspection: false` refuses `__schema` and `__type`). A refusal is a GraphQL error with
 * `extensions.status` 400.
 */
import {
  GraphQLError,
  getNamedType,
  getNullableType,
  isIntrospectionType,
  isListType,
  isObjectType,
  Kind,
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLOutputType,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import type { GraphQlSettings } from '../metadata/types.js';

/** The rules of one request: the complexity depends on its variables (`first: $n`) and operation. */
export function limitRules(
  settings: GraphQlSettings,
  defaultPageSize: number,
  request: { variables?: Readonly<Record<string, unknown>> | null; operationName?: string | null },
): ValidationRule[] {
  const rules = [
    depthRule(settings.maxQueryDepth),
    complexityRule(settings.maxQueryComplexity, defaultPageSize, request.variables ?? {}, request.operationName),
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
 * The estimated cost of the operation that runs: 1 per field, and a list or a connection costs its children
 * times the page it asks for (`first`, `last`, `itemsPerPage`) or else `defaultPageSize` (the connection's
 * `edges` or `collection` inside it is that page, not multiplied again). Introspection fields
 * cost 1 each: their lists are the schema's, whatever the query asks, and graphql-js's MaxIntrospectionDepthRule
 * (one of its specified rules) refuses the nestings that would multiply them. Counted so, GraphiQL's own
 * introspection query costs about 230.
 */
export function complexityRule(
  max: number,
  defaultPageSize: number,
  variables: Readonly<Record<string, unknown>>,
  operationName: string | null | undefined,
): ValidationRule {
  const estimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
    if (isIntrospectionType(type) || isIntrospectionType(getNamedType(field.type))) return 1 + childComplexity;
    // A connection's `edges` or `collection` is the page its field already counted.
    if (!isPaged(field.type) || isConnection(type)) return 1 + childComplexity;
    const requested = [args.first, args.last, args.itemsPerPage].find((n) => typeof n === 'number' && n >= 0);
    return 1 + childComplexity * ((requested as number | undefined) ?? defaultPageSize);
  };
  return (context) => ({
    Document: {
      leave(document) {
        let cost: number;
        try {
          cost = getComplexity({
            schema: context.getSchema(),
            query: document,
            estimators: [estimator],
            variables: { ...variables },
            operationName: namesOperation(document, operationName) ? operationName! : undefined,
          });
        } catch (e) {
          // Variables that do not fit, or more nodes than the estimator walks: the request is refused.
          context.reportError(refusal(e instanceof GraphQLError ? e.message : "The query's cost cannot be estimated."));
          return;
        }
        if (cost > max) context.reportError(refusal(`The query's complexity ${cost} is above the limit of ${max}.`));
      },
    },
  });
}

/** graphql-query-complexity reads `operation.name` of every operation once it is given a name: only a known one. */
const namesOperation = (document: DocumentNode, name: string | null | undefined): boolean =>
  typeof name === 'string' &&
  document.definitions.every((d) => d.kind !== Kind.OPERATION_DEFINITION || d.name !== undefined) &&
  document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === name);

/** A list, or a connection. */
function isPaged(type: GraphQLOutputType): boolean {
  const nullable = getNullableType(type);
  return isListType(nullable) || isConnection(nullable);
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

/**
 * Security expressions: each is parsed and analysed, and every problem is placed at its exact
 * column inside the string. The URI variables in scope are the placeholders of the operation's
 * route; for a resource-level or property-level expression (which applies to several operations),
 * a placeholder of any of the resource's operations. Also warns when a Post's `security` reads the
 * object (always null there) and when expressions are used with no authentication configured.
 */
import * as A from '../../ast.js';
import {
  analyzeExpression,
  objectMemberChains,
  parseExpression,
  walkExpression,
  ASSERT_VARIABLES,
  DEFAULT_VALUE_VARIABLES,
  EXPRESSION_TOPIC_MARKER,
  OBJECT_VARIABLES,
  TOPIC_FUNCTIONS,
  TOPIC_VARIABLES,
  type AnalyzeOptions,
  type ExprNode,
  type ParsedExpression,
} from '../../expression.js';
import { configEntry, type ModelOperation, type ModelResource } from '../../model.js';
import { placeholders } from '../../naming.js';
import { StringOffsets } from '../../string-offsets.js';
import { closest, didYouMean } from '../../suggest.js';
import type { CheckContext } from '../check-context.js';

/** The operation and resource options holding expressions. */
export const SECURITY_OPTIONS = ['security', 'securityPostDenormalize', 'securityPostValidation'] as const;
/** The property constraints holding expressions. */
export const PROPERTY_SECURITY_CONSTRAINTS = ['security', 'securityPostDenormalize'] as const;

export function checkSecurity(ctx: CheckContext): void {
  const authenticated = hasAuthentication(ctx);
  const scoped = (
    value: A.Value | undefined,
    uriVariables: readonly string[],
    post: PostUse | undefined,
    item: ModelResource | undefined,
  ): void => {
    if (value?.kind !== 'string' || !ctx.expressions.has(value)) return;
    const where = ctx.expressions.get(value)!;
    ctx.expressions.delete(value);
    const ast = checkExpression(ctx, value, where, { uriVariables });
    if (ast && post) warnObjectInPost(ctx, value, ast, post);
    if (ast && item) checkObjectMembers(ctx, value, 0, ast, item, where);
    if (!authenticated) warnNoAuthentication(ctx, value, where);
  };
  for (const resource of ctx.model.resources.values()) {
    const resourceScope = resourceUriVariables(resource);
    const inheritingPosts = resource.operations.filter((op) => op.kind === 'Post' && !op.options.has('security'));
    for (const name of SECURITY_OPTIONS) {
      const post = name === 'security' && inheritingPosts.length ? { inherited: true } : undefined;
      scoped(resource.options.get(name)?.value, resourceScope, post, resource);
    }
    for (const op of resource.operations) {
      for (const name of SECURITY_OPTIONS) {
        scoped(
          op.options.get(name)?.value,
          operationUriVariables(op),
          name === 'security' && op.kind === 'Post' ? { inherited: false } : undefined,
          // A GetCollection's `security` sees the page's items as `object`: a list, not an item.
          name === 'security' && op.kind === 'GetCollection' ? undefined : resource,
        );
      }
      // A parameter's `security` is evaluated with the operation's URI variables in scope.
      for (const value of parameterSecurities(op.options.get('parameters')?.value))
        scoped(value, operationUriVariables(op), undefined, undefined);
    }
    for (const property of resource.properties.values()) {
      for (const name of PROPERTY_SECURITY_CONSTRAINTS)
        scoped(property.constraints.get(name)?.value, resourceScope, undefined, resource);
    }
    checkTopicExpressions(ctx, resource);
  }
  // Expressions elsewhere (link security): checked without knowing the variables in scope.
  for (const [value, where] of ctx.expressions) {
    checkExpression(ctx, value, where, {});
    if (!authenticated) warnNoAuthentication(ctx, value, where);
  }
  ctx.expressions.clear();
}

/** The `security` values of an operation's `parameters` entries. */
function parameterSecurities(parameters: A.Value | undefined): A.Value[] {
  if (parameters?.kind !== 'object') return [];
  return parameters.entries.flatMap((entry) => {
    const security = entry.value?.kind === 'object' ? A.entryOf(entry.value, 'security')?.value : undefined;
    return security ? [security] : [];
  });
}

interface PostUse {
  inherited: boolean;
}

function warnNoAuthentication(ctx: CheckContext, value: A.StringValue, where: string): void {
  ctx.report(
    'security-without-authentication',
    value.range,
    `${where}: config has no authentication (neither security { jwt { … } } nor an authenticator), ` +
      "so every request is anonymous and is_granted('ROLE_…') always denies",
  );
}

/** Whether `config { security { … } }` authenticates anyone (a jwt block or an authenticator). */
export function hasAuthentication(ctx: CheckContext): boolean {
  return (
    configEntry(ctx.model.config, 'security.jwt') !== undefined ||
    configEntry(ctx.model.config, 'security.authenticator') !== undefined
  );
}

export function operationUriVariables(op: ModelOperation): string[] {
  return placeholders(op.path);
}

/** For an expression that applies to several operations: a placeholder of any of them. */
export function resourceUriVariables(resource: ModelResource): string[] {
  return [...new Set(resource.operations.flatMap(operationUriVariables))];
}

const parsedExpressions = new Map<string, ParsedExpression>();

/** Parsed once per source text: the checker meets the same expressions on each analysis (the trees are only read). */
function parsedExpression(source: string): ParsedExpression {
  let parsed = parsedExpressions.get(source);
  if (!parsed) {
    if (parsedExpressions.size >= 10_000) parsedExpressions.clear();
    parsed = parseExpression(source);
    parsedExpressions.set(source, parsed);
  }
  return parsed;
}

/**
 * Parses and analyses one expression, reporting at exact positions; the tree when it parses. `shift`: where the
 * expression starts in the string (2 after a topic's `@=`).
 */
export function checkExpression(
  ctx: CheckContext,
  value: A.StringValue,
  where: string,
  scope: AnalyzeOptions,
  shift = 0,
): ExprNode | undefined {
  const offsets = new StringOffsets(ctx.text, value.range);
  const parsed = parsedExpression(value.value.slice(shift));
  if (!parsed.ok) {
    ctx.report(
      'invalid-expression',
      offsets.rangeInText(parsed.start + shift, parsed.end + shift),
      `${where} is not a valid expression: ${parsed.message}`,
    );
    return undefined;
  }
  for (const issue of analyzeExpression(parsed.ast, scope)) {
    const range = offsets.rangeInText(issue.start + shift, issue.end + shift);
    const code =
      issue.code === 'unknown-function' || issue.code === 'unknown-variable' ? issue.code : 'invalid-expression';
    ctx.report(code, range, `${where}: ${issue.message}${didYouMean(issue.suggestion)}`, issue.suggestion);
  }
  return parsed.ast;
}

/** An `assert` constraint's expression: it sees `value`, `object`, `previous_object` and `user` only. */
export function checkAssertExpression(ctx: CheckContext, value: A.StringValue, where: string): void {
  checkExpression(ctx, value, where, { variables: ASSERT_VARIABLES });
}

/**
 * The resource a dotted path of `object` reaches through to-one relations, or where it leaves what the file
 * declares: `{ resource }` for `['shop']` from an Order (the Shop), `{ unknown: i, of }` when the i-th name is
 * not a property of `of`; undefined past a value that is not a to-one relation (a list, a json value).
 */
export function memberTarget(
  model: { resources: ReadonlyMap<string, ModelResource> },
  from: ModelResource,
  path: readonly string[],
): { resource: ModelResource } | { unknown: number; of: ModelResource } | undefined {
  let at = from;
  for (let i = 0; i < path.length; i++) {
    const property = at.properties.get(path[i]);
    if (!property) return { unknown: i, of: at };
    const target = property.type && !property.array ? model.resources.get(property.type) : undefined;
    if (!target) return undefined;
    at = target;
  }
  return { resource: at };
}

/** `object.shop.ownr`: each name read of the item and through its relations must be a declared property. */
export function checkObjectMembers(
  ctx: CheckContext,
  value: A.StringValue,
  shift: number,
  ast: ExprNode,
  item: ModelResource,
  where: string,
): void {
  const offsets = new StringOffsets(ctx.text, value.range);
  for (const chain of objectMemberChains(ast)) {
    const reached = memberTarget(ctx.model, item, chain.path);
    if (!reached || !('unknown' in reached)) continue;
    const node = chain.nodes[reached.unknown];
    const known = [...reached.of.properties.keys()];
    const suggestion = closest(node.property, known);
    ctx.report(
      'unknown-property',
      offsets.rangeInText(node.nameStart + shift, node.end + shift),
      `${where}: '${node.property}' is not a property of ${reached.of.name}; known: ${known.join(', ')}` +
        didYouMean(suggestion),
      suggestion,
    );
  }
}

/**
 * Mercure topics written as expressions (`mercure: { topics: ["@=iri(object)"] }`, on the resource, an operation
 * or a GraphQL operation): each sees `object` (the item) and calls iri() and escape() (realtime/topics.ts).
 */
function checkTopicExpressions(ctx: CheckContext, resource: ModelResource): void {
  const holders = [resource.options, ...resource.operations.map((o) => o.options)];
  for (const op of resource.graphql ?? []) holders.push(op.options);
  for (const options of holders) {
    const mercure = options.get('mercure')?.value;
    if (mercure?.kind !== 'object') continue;
    const topics = mercure.entries.find((e) => e.key.text === 'topics')?.value;
    if (topics?.kind !== 'array') continue;
    for (const topic of topics.items) {
      if (topic.kind !== 'string' || !topic.value.startsWith(EXPRESSION_TOPIC_MARKER)) continue;
      const shift = EXPRESSION_TOPIC_MARKER.length;
      const scope = { variables: TOPIC_VARIABLES, functions: TOPIC_FUNCTIONS };
      const ast = checkExpression(ctx, topic, 'mercure topic', scope, shift);
      if (ast) checkObjectMembers(ctx, topic, shift, ast, resource, 'mercure topic');
    }
  }
}

/**
 * A property default's expression (`default: { expression: … }`): it sees `user` only. Without authentication
 * `user` is always null, and a default read from it refuses every create: a warning says so.
 */
export function checkValueExpression(ctx: CheckContext, value: A.StringValue, where: string): void {
  const ast = checkExpression(ctx, value, where, { variables: DEFAULT_VALUE_VARIABLES });
  let readsUser = false;
  if (ast) walkExpression(ast, (n) => (readsUser ||= n.kind === 'name' && n.name === 'user'));
  if (readsUser && !hasAuthentication(ctx))
    ctx.report(
      'security-without-authentication',
      value.range,
      `${where}: config has no authentication (neither security { jwt { … } } nor an authenticator), so every ` +
        'request is anonymous and `user` is always null: a create that needs this default is refused',
    );
}

function warnObjectInPost(ctx: CheckContext, value: A.StringValue, ast: ExprNode, post: PostUse): void {
  const offsets = new StringOffsets(ctx.text, value.range);
  walkExpression(ast, (n) => {
    if (n.kind !== 'name' || !OBJECT_VARIABLES.has(n.name)) return;
    const where = post.inherited ? 'for the Post operations that inherit this security' : "in a Post's security";
    ctx.report(
      'object-always-null',
      offsets.rangeInText(n.start, n.end),
      `'${n.name}' is always null ${where} (nothing is read before a Post); use securityPostDenormalize to check the new item`,
    );
  });
}

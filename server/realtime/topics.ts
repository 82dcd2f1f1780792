/**
 * Mercure topics written as expressions (`topics: ["@=iri(object)", "@='/users/' ~ object.owner ~ '/orders'"]`,
 * API Platform's form): the text after `@=` is an expression that sees `object` (the item changed, the removed
 * one for a delete; its to-one relations readable through, `object.shop.owner`) and calls `iri(item)` and
 * `escape(text)`. Any other topic is published as written. A topic whose expression fails, or whose value is not
 * a non-empty string, fails the update: it is not published (fail closed: a private update never goes to a topic
 * nobody meant).
 */
import { EXPRESSION_TOPIC_MARKER, TOPIC_FUNCTIONS, TOPIC_VARIABLES } from '../../grammar/expression.js';
import { compileExpression, ITEM_IRI, type CompiledExpression, type MemberPaths } from '../expression/evaluate.js';
import { ExpressionDataError, toPhpString, typeName } from '../expression/values.js';

/** A topic as written: text, or the expression after `@=`. */
export type Topic = { text: string } | { expression: CompiledExpression };

/** Compiled once per source text: an update's topics are the same for every change of a resource. */
const compiled = new Map<string, CompiledExpression>();

/** A topic as written in the file; an expression that cannot be compiled throws (the checker refuses it first). */
export function topicOf(written: string): Topic {
  if (!written.startsWith(EXPRESSION_TOPIC_MARKER)) return { text: written };
  let expression = compiled.get(written);
  if (!expression) {
    const source = written.slice(EXPRESSION_TOPIC_MARKER.length);
    expression = compileExpression(source, { variables: TOPIC_VARIABLES, functions: TOPIC_FUNCTIONS });
    if (compiled.size >= 1_000) compiled.clear();
    compiled.set(written, expression);
  }
  return { expression };
}

/** Whether any of the topics is an expression (its update is then built asynchronously). */
export const hasTopicExpression = (written: readonly string[] | undefined): boolean =>
  written?.some((t) => t.startsWith(EXPRESSION_TOPIC_MARKER)) === true;

/** What the topics' expressions read through `object`'s relations, merged. */
export function topicMemberPaths(written: readonly string[]): MemberPaths['object'] {
  return written.map(topicOf).flatMap((t) => ('expression' in t ? t.expression.memberPaths.object : []));
}

/** PHP's rawurlencode: every byte but letters, digits and `-_.~` percent-encoded. */
export const rawUrlEncode = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The topics of one change: `object` is the item as the expressions see it (relations read through already,
 * its IRI under ITEM_IRI). `iri(…)` answers an absolute URL on `origin` (API Platform's default), a path without one.
 */
export async function evaluateTopics(
  written: readonly string[],
  object: unknown,
  origin: string | undefined,
): Promise<string[]> {
  const iri = (value: unknown): string => {
    const path = typeof value === 'string' ? value : (value as { [ITEM_IRI]?: string } | null)?.[ITEM_IRI];
    if (typeof path !== 'string' || path === '') throw new ExpressionDataError(`iri() of ${typeName(value)}`);
    return origin && path.startsWith('/') ? `${origin}${path}` : path;
  };
  const functions = { iri, escape: (text: unknown) => rawUrlEncode(toPhpString(text)) };
  const context = {
    user: null,
    roles: [],
    object,
    previous_object: null,
    request: { method: '', path: '', query: {}, headers: {} },
    uriVariables: {},
    isGranted: () => false,
    functions,
  };
  const topics: string[] = [];
  for (const topic of written.map(topicOf)) {
    if ('text' in topic) {
      topics.push(topic.text);
      continue;
    }
    const value = await topic.expression.value(context);
    const text = typeof value === 'string' || typeof value === 'number' ? toPhpString(value) : '';
    if (text === '') throw new ExpressionDataError(`topic "${topic.expression.source}" is not a non-empty string`);
    topics.push(text);
  }
  return topics;
}

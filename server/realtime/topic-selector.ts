/**
 * Topic selectors of the Mercure protocol: `*` matches every topic, a selector equal to the topic matches
 * it, and a selector that is a URI template (RFC 6570) matches the topics it could expand to.
 */
import { UriTemplateMatcher } from 'uri-template-matcher';

/** Compiled selectors, bounded: selectors come from subscribers' query strings. */
const compiled = new Map<string, UriTemplateMatcher | null>();
const MAX_COMPILED = 10_000;

function matcherOf(selector: string): UriTemplateMatcher | null {
  let matcher = compiled.get(selector);
  if (matcher === undefined) {
    matcher = null;
    if (selector.includes('{')) {
      try {
        matcher = new UriTemplateMatcher();
        matcher.add(selector);
      } catch {
        matcher = null; // not a valid template: it only matches itself
      }
    }
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(selector, matcher);
  }
  return matcher;
}

export function selectorMatches(selector: string, topic: string): boolean {
  if (selector === '*' || selector === topic) return true;
  const matcher = matcherOf(selector);
  if (!matcher) return false;
  try {
    return matcher.match(topic) !== null;
  } catch {
    return false;
  }
}

/** Whether any of the topics matches any of the selectors. */
export const anyMatches = (selectors: readonly string[], topics: readonly string[]): boolean =>
  topics.some((topic) => selectors.some((selector) => selectorMatches(selector, topic)));

/**
 * Which declared properties a user may not see, for documents that describe every item at once
 * (the OpenAPI schemas): a property's `security` is evaluated with no object (null), so a rule that
 * needs the item hides the property from the schema unless it grants without one.
 */
import type { ApiMetadata } from '../metadata/types.js';
import { allows, type RequestFacts } from './access.js';

/** Whether any property of the API has a read rule (else every user sees the same schemas). */
export const hasPropertySecurity = (api: ApiMetadata): boolean =>
  api.resources.some((r) => r.properties.some((p) => p.security));

/** Resource short name → the properties this user may not see (resources without any left out). */
export async function hiddenSchemaProperties(api: ApiMetadata, facts: RequestFacts): Promise<Map<string, string[]>> {
  const hidden = new Map<string, string[]>();
  for (const resource of api.resources) {
    const names: string[] = [];
    for (const p of resource.properties)
      if (p.security && !(await allows(p.security, facts, null, null))) names.push(p.name);
    if (names.length) hidden.set(resource.shortName, names);
  }
  return hidden;
}

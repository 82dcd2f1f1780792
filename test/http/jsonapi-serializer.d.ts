// The part of jsonapi-serializer (no bundled types) the JSON:API tests use: its Deserializer.
declare module 'jsonapi-serializer' {
  export class Deserializer {
    /** Options by resource type: `{ Author: { valueForRelationship } }` reads a relationship without `included`. */
    constructor(options?: Record<string, unknown> & { keyForAttribute?: string });
    deserialize(document: unknown): Promise<unknown>;
  }
}

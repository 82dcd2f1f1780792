/**
 * The formats the serializers can write, each with its registered media type. Only the configured ones are
 * served (the `formats` setting; JSON:API is off by default); a request for another of these is refused with
 * the `formats` entry that would serve it (protocol/negotiation.ts).
 */
import { JSONAPI_FORMAT, JSONAPI_MEDIA_TYPE } from './jsonapi.js';

export const SERVABLE_FORMATS: Readonly<Record<string, string>> = {
  jsonld: 'application/ld+json',
  json: 'application/json',
  [JSONAPI_FORMAT]: JSONAPI_MEDIA_TYPE,
};

/** The OpenAPI documentation of an API: `apidsl openapi` and `GET /docs.json`. */
export {
  DEFAULT_SPEC_VERSION,
  SPEC_VERSIONS,
  isSpecVersion,
  openApiCache,
  openApiDocument,
  operationId,
  type OmittedOperation,
  type OpenApiDocument,
  type OpenApiOptions,
  type SpecVersion,
} from './document.js';

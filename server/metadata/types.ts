/**
 * Runtime metadata: what the interpreter knows about every resource and operation once the
 * `.api` file is loaded (defaults applied, mutators run, custom code imported). Built once by
 * load.ts; read by routing, the pipeline, serialization and documentation.
 */
import type { OperationKind } from '../../grammar/catalogue/types.js';
import type { CollectionSpec } from '../store/types.js';

/** Global settings of `config`, resolved with their defaults. */
export interface Settings {
  pageParameter: string;
  enabledParameter: string;
  itemsPerPageParameter: string;
  partialParameter: string;
  orderParameter: string;
  existsParameter: string;
  defaultOrder: 'ASC' | 'DESC';
  /** Output/input formats in preference order: name → media types. */
  formats: Record<string, string[]>;
  patchFormats: string[];
  errorFormats: Record<string, string[]>;
  hydraPrefix: boolean;
  bodySizeLimit: number;
  /** Global defaults of operation options, by option name (`paginationItemsPerPage` → 30). */
  defaults: Record<string, unknown>;
}

export interface PropertyMetadata {
  name: string;
  /** Base type: int, number, string, bool, datetime, date, json, or a resource name (relation). */
  type: string;
  array: boolean;
  /** Target resource of a relation (the property holds its IRIs). */
  relation?: string;
  identifier: boolean;
  required: boolean;
  /** False when `nullable: false` rejects an explicit null. */
  nullable: boolean;
  readOnly: boolean;
  writeOnly: boolean;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: unknown[];
  groups?: string[];
  /**
   * Validation constraints written in object form, by constraint name (`maxLength`): their validation
   * groups (`Default` when the form gives none) and custom message. Others are in `Default`.
   */
  validation?: Record<string, { groups: string[]; message?: string }>;
  description?: string;
  /** True when any validation constraint is declared (API Platform 4.4 then answers type errors with 422). */
  constrained: boolean;
}

// Custom code is user JavaScript: its signatures are documented in types/apidsl.d.ts.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CodeFunction = (...args: any[]) => unknown;

export interface OperationMetadata {
  name: string;
  kind: OperationKind;
  /** Upper-case HTTP method. */
  method: string;
  resource: ResourceMetadata;
  /** Route template, route prefix included: `/geo/places/{id}`. */
  path: string;
  uriVariables: string[];
  /** Answers a collection document (GetCollection, Query). */
  collection: boolean;
  /** Automatic IRI routes: always 404, in no documentation. */
  hidden: boolean;
  /** The 404 detail of a hidden route. */
  hiddenDetail?: string;
  /**
   * Options as written (resource-level values merged under the operation's own) and as
   * mutators left them. Global and catalogue defaults apply at use: see options.ts.
   */
  options: Readonly<Record<string, unknown>>;
  provider?: CodeFunction;
  processor?: CodeFunction;
  controller?: CodeFunction | 'NotFoundAction';
}

export interface ResourceMetadata {
  shortName: string;
  description?: string;
  properties: PropertyMetadata[];
  identifier?: PropertyMetadata;
  /** `/geo/places`. */
  collectionPath: string;
  /** `/geo/places/{id}`; undefined without an identifier. */
  itemPath?: string;
  /** Registered operations in declaration order, hidden ones last. */
  operations: OperationMetadata[];
  /** Resource-level options after resource mutators. */
  options: Readonly<Record<string, unknown>>;
  storage: CollectionSpec;
}

export type FilterKind = 'search' | 'range' | 'order' | 'exists' | 'boolean' | 'date';

/** A declared filter: its kind and, per property, the setting of a map-form `properties`. */
export interface FilterMetadata {
  name: string;
  kind: FilterKind;
  properties: { name: string; setting?: string }[];
  description?: string;
}

export interface ApiMetadata {
  title: string;
  version?: string;
  description?: string;
  settings: Settings;
  resources: ResourceMetadata[];
  filters: Map<string, FilterMetadata>;
  resource(name: string): ResourceMetadata | undefined;
}

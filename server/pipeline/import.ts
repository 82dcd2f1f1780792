/**
 * `apidsl import`'s road into writes (docs/data.md): each record goes through the same stages as the body of a
 * POST of the resource, as a bulk POST's items do (bulk.ts): the deserialize stage's `applyBody`, as a record the
 * administrator restores (its identifier and the values the server sets kept: representation/restored-values.ts),
 * then the stages up to the write that are not access checks (chain.ts `importStages`: validation), then its
 * insert. The records of a batch are written in one `Runtime.batch` (one store transaction where the store has
 * them, the search index told once it ended), their relation IRIs read ahead with one query per target resource
 * (relations/targets.ts `ReadAhead`). The runtime is the one `serve` makes (open-runtime.ts): the same collections,
 * index sync and transaction. No processor, message, Mercure update nor cache is involved: the import stores data.
 */
import type { Logger } from 'pino';
import { pino } from 'pino';
import { placeholders } from '../../grammar/naming.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata } from '../metadata/types.js';
import { HttpError } from '../protocol/errors.js';
import { iriResolver } from '../protocol/iri.js';
import { ANONYMOUS } from '../security/access.js';
import type { Item, Store } from '../store/types.js';
import { itemState } from './bulk.js';
import { importStages } from './chain.js';
import { operationState } from './execute.js';
import { startRuntime } from './open-runtime.js';
import { ReadAhead } from './relations/targets.js';
import type { Runtime } from './runtime.js';
import { applyBody } from './stages/deserialize.js';
import type { OperationState } from './state.js';
import { refusingConflicts } from './writes/conflicts.js';

/** What became of a record: the item stored, or why it is refused (the answer a POST of it would get). */
export type RecordOutcome = { item: Item; refusal?: undefined } | { refusal: HttpError; item?: undefined };

/** Writes one record of the batch being written. */
export type WriteRecord = (record: unknown) => Promise<RecordOutcome>;

/** The records of an import into one resource. */
export class RecordImport {
  private constructor(
    private readonly runtime: Runtime,
    private readonly resource: ResourceMetadata,
    /** The state each record's starts from: a POST's of the resource, by the import's principal. */
    private readonly state: OperationState,
  ) {
    this.stages = importStages(state.operation, state.api.settings);
  }

  /** The stages each record goes through once its body is applied. */
  private readonly stages: ReturnType<typeof importStages>;

  /** Opens the runtime of `api` on `store` for an import into `resource`; `logger` hears the search index. */
  static async open(api: ApiMetadata, store: Store, resource: ResourceMetadata, logger: Logger): Promise<RecordImport> {
    const runtime = await startRuntime(api, store, { logger });
    // What an expression of a default sees: no user (an import has none), and nothing logged for a record it
    // refuses (the refusal is printed with the record's line).
    const quiet: Runtime = { ...runtime, logger: SILENT };
    const op = importOperation(resource);
    const state = operationState(quiet, op, {
      method: 'POST',
      path: op.path,
      query: {},
      uriVariables: {},
      headers: {},
      principal: ANONYMOUS,
      origin: '',
    });
    return new RecordImport(runtime, resource, state);
  }

  /** Whether a batch is stored whole or not at all (a store with transactions), rather than record by record. */
  get atomic(): boolean {
    return this.runtime.transaction !== undefined;
  }

  /**
   * Runs `run` with the writer of a batch of `records` (raw, as read from the file), inside the batch's writes:
   * `run` writes them in the order it chooses, each outcome known as it is written.
   */
  async batch<T>(records: readonly unknown[], run: (write: WriteRecord) => Promise<T>): Promise<T> {
    const { collectionOf } = this.runtime;
    const targets = await ReadAhead.of(this.resource, records, iriResolver(this.runtime.api), collectionOf);
    return this.runtime.batch(() => run((record) => this.write(record, targets)));
  }

  private async write(record: unknown, targets: ReadAhead): Promise<RecordOutcome> {
    const state = itemState(this.state);
    try {
      await applyBody(state, record, { restore: true, targets });
      for (const stage of this.stages) {
        const pending = stage(state);
        if (pending) await pending;
      }
      const saved = await refusingConflicts(() => state.storeCollection.insert(state.data as Item));
      targets.add(this.resource, saved);
      return { item: saved };
    } catch (e) {
      if (e instanceof HttpError) return { refusal: e };
      throw e;
    }
  }

  /** Closes the runtime (the search index gets the changes still waiting for it); the store is the caller's. */
  close(): Promise<void> {
    return this.runtime.close();
  }
}

const SILENT = pino({ enabled: false });

const importOperations = new WeakMap<ResourceMetadata, OperationMetadata>();

/**
 * The operation whose rules a record obeys: the resource's Post, or for a resource without one a POST of its
 * collection with no options of its own (the `Default` validation group).
 */
export function importOperation(resource: ResourceMetadata): OperationMetadata {
  const post = resource.operations.find((op) => op.kind === 'Post' && !op.hidden);
  if (post) return post;
  let op = importOperations.get(resource);
  if (!op) {
    op = {
      name: `_api_${resource.shortName}_import`,
      kind: 'Post',
      method: 'POST',
      resource,
      shortName: resource.shortName,
      path: resource.collectionPath,
      uriVariables: placeholders(resource.collectionPath),
      isCollection: false,
      hidden: true,
      options: {},
    };
    importOperations.set(resource, op);
  }
  return op;
}

/**
 * What one caller may see of the leak test's world (test/http/scopes-leaks.test.ts), from the oracle: which rows an
 * operation's read or write scope holds for, and the check every response body goes through: no token of a row the
 * caller may not read (through any read operation of its resource) and no IRI of one, except where a row they may
 * read names it in a relation (an out-of-scope related item stays an IRI, docs/scopes.md). Findings are collected,
 * not thrown at once, so that one run reports every face that leaks.
 */
import type { OperationMetadata, ResourceMetadata } from '../../../server/metadata/types.js';
import type { Caller, LeakApi, Row, World } from './world.js';

/** The kinds of operation that read items (REST and GraphQL: a GraphQL operation's kind is its REST twin's). */
const READS = new Set(['Get', 'GetCollection', 'Query']);

/** How many findings a run keeps: past this, only their count. */
const KEPT = 40;

export class Findings {
  readonly list: string[] = [];
  private more = 0;

  add(finding: string): void {
    if (this.list.length < KEPT) this.list.push(finding);
    else this.more++;
  }

  /** Throws with every finding when there is one (fast-check then reports the world that made them). */
  throwIfAny(): void {
    if (this.list.length === 0) return;
    throw new Error(`${this.list.join('\n')}${this.more ? `\n… and ${this.more} more` : ''}`);
  }
}

export class Sight {
  private readonly readable = new Set<Row>();
  private forbiddenTokens: [string, Row][] = [];
  private forbiddenIris: Row[] = [];

  private constructor(
    readonly leak: LeakApi,
    readonly world: World,
    readonly caller: Caller,
    readonly findings: Findings,
  ) {}

  static async of(leak: LeakApi, world: World, caller: Caller, findings: Findings): Promise<Sight> {
    const sight = new Sight(leak, world, caller, findings);
    await sight.survey();
    return sight;
  }

  /** Whether the operation's read (or write) scope holds for the row, for this caller; no scope: it does. */
  holds(op: OperationMetadata, row: Row, which: 'read' | 'write'): Promise<boolean> {
    const scope = this.leak.scopeOf(op)[which];
    if (!scope) return Promise.resolve(true);
    return scope.holds(row, this.caller.context, (iri) => this.world.byIri.get(iri));
  }

  /** What a PUT, PATCH or DELETE of the row answers this caller: 404 outside the read scope, 403 outside the write scope. */
  async refusal(op: OperationMetadata, row: Row): Promise<404 | 403 | undefined> {
    if (!(await this.holds(op, row, 'read'))) return 404;
    return (await this.holds(op, row, 'write')) ? undefined : 403;
  }

  /**
   * Whether the write scope refuses a POST of a copy of the row by this caller, the row taken as it would be stored:
   * a read-only property gets the value the server sets (`default: { expression }` for the caller; null when it
   * sets none), as the body's is ignored (docs/behaviour.md, "Values the server sets").
   */
  async refusesCopy(op: OperationMetadata, row: Row): Promise<boolean> {
    const values = { ...row.values };
    for (const p of row.resource.properties) {
      if (!p.readOnly || p.identifier) continue;
      const computed = typeof p.serverDefault === 'object' ? p.serverDefault : undefined;
      values[p.name] = computed ? await computed.value(this.caller.context).catch(() => null) : null;
    }
    return !(await this.holds(op, { ...row, values }, 'write'));
  }

  /** The rows of the operation's resource its read scope holds for, in identifier order. */
  async visible(op: OperationMetadata): Promise<Row[]> {
    const rows = this.world.of(op.resource);
    const held = await Promise.all(rows.map((r) => this.holds(op, r, 'read')));
    return rows.filter((_, i) => held[i]);
  }

  /** Whether the caller may read the row through some read operation of its resource. */
  mayRead(row: Row): boolean {
    return this.readable.has(row);
  }

  /** A finding unless `ok`. */
  expect(ok: boolean, finding: () => string): void {
    if (!ok) this.findings.add(`${this.caller.name}: ${finding()}`);
  }

  /**
   * Checks a response body: no token and no IRI of a row the caller may not read. `echoed`: values the request
   * itself sent (a filter's value, the IRI asked for), which a body may repeat (a view's links, an error).
   */
  check(text: string, where: string, echoed: readonly string[] = []): void {
    let body = text;
    for (const value of echoed.filter((e) => e !== ''))
      for (const form of [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)])
        body = body.split(form).join('');
    for (const [token, row] of this.forbiddenTokens)
      if (body.includes(token)) this.expect(false, () => `${where} shows ${token}, a value of ${row.iri}`);
    for (const row of this.forbiddenIris)
      if (body.includes(`"${row.iri}"`)) this.expect(false, () => `${where} shows the IRI ${row.iri}`);
  }

  private async survey(): Promise<void> {
    for (const resource of new Set(this.world.rows.map((r) => r.resource))) await this.surveyResource(resource);
    const named = new Set<string>();
    for (const row of this.readable)
      for (const p of row.resource.properties)
        if (p.relation && typeof row.values[p.name] === 'string') named.add(row.values[p.name] as string);
    for (const row of this.world.rows) {
      if (this.readable.has(row)) continue;
      for (const token of row.tokens) this.forbiddenTokens.push([token, row]);
      if (!named.has(row.iri)) this.forbiddenIris.push(row);
    }
  }

  private async surveyResource(resource: ResourceMetadata): Promise<void> {
    const reads = this.leak.operations(resource).filter((op) => READS.has(op.kind) && !op.hidden);
    for (const row of this.world.of(resource))
      for (const op of reads)
        if (await this.holds(op, row, 'read')) {
          this.readable.add(row);
          break;
        }
  }
}

/**
 * `apidsl diff`: the changes between two loaded APIs (their metadata, not their text), each graded and attributed
 * (findings.ts), with the note a breaking change without a major version bump deserves (docs/diff.md).
 */
import { resourceOption } from '../metadata/options.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata } from '../metadata/types.js';
import { exposureFindings } from './exposure.js';
import { finding, SEVERITIES, type Finding, type Severity } from './findings.js';
import { operationFindings, resourceDeprecation } from './operations.js';
import { pairOperations, pairProperties, pairResources, publicOperations, routeOf, type Paired } from './pairing.js';
import { addedPropertyFinding, propertyFindings, removedPropertyFinding, type ResourceChange } from './properties.js';

export interface DiffReport {
  old: { title: string; version?: string };
  new: { title: string; version?: string };
  findings: Finding[];
  /** Findings by severity. */
  counts: Record<Severity, number>;
  /** Set when a breaking change comes without a major `api { version }` bump. */
  versionNote?: string;
}

function resourceFindings(apis: Paired<ApiMetadata>, pair: Paired<ResourceMetadata>): Finding[] {
  const subject = pair.new.name;
  const oldOps = publicOperations(pair.old);
  const routes = oldOps.map(routeOf);
  const out: Finding[] = [];
  if (pair.old.shortName !== pair.new.shortName) {
    const renamed = pair.old.name !== pair.new.name;
    const detail = `${renamed ? 'renamed' : 'shortName'} ${pair.old.shortName} → ${pair.new.shortName}`;
    out.push(finding(renamed ? 'resource-renamed' : 'short-name-changed', subject, detail, routes));
  }
  const [prefixWas, prefixIs] = [resourceOption(pair.old, 'routePrefix'), resourceOption(pair.new, 'routePrefix')];
  if (prefixWas !== prefixIs)
    out.push(
      finding('route-prefix-changed', subject, `routePrefix ${prefixWas ?? 'none'} → ${prefixIs ?? 'none'}`, routes),
    );
  const idText = (r: ResourceMetadata) => (r.identifier ? `${r.identifier.name} (${r.identifier.type})` : 'none');
  if (idText(pair.old) !== idText(pair.new) && pair.old.identifier?.name !== pair.new.identifier?.renamedFrom)
    out.push(finding('identifier-changed', subject, `identifier ${idText(pair.old)} → ${idText(pair.new)}`, routes));
  const operations = pairOperations(pair.old, pair.new);
  const change: ResourceChange = {
    subject,
    operations: operations.pairs,
    oldOperations: oldOps,
    settings: { old: apis.old.settings, new: apis.new.settings },
  };
  const properties = pairProperties(pair.old.properties, pair.new.properties);
  out.push(...properties.removed.map((p) => removedPropertyFinding(change, p)));
  out.push(...properties.added.map((p) => addedPropertyFinding(change, publicOperations(pair.new), p)));
  out.push(...properties.pairs.flatMap((p) => propertyFindings(change, p.old, p.new)));
  out.push(
    ...operations.removed.map((op) =>
      finding('operation-removed', subject, `${op.kind} ${routeOf(op)} removed`, [routeOf(op)]),
    ),
  );
  out.push(
    ...operations.added.map((op) =>
      finding('operation-added', subject, `${op.kind} ${routeOf(op)} added`, [routeOf(op)]),
    ),
  );
  out.push(...operations.pairs.flatMap((ops) => operationFindings(apis, ops).filter((f) => !moved(pair, ops, f))));
  out.push(...resourceDeprecation(subject, oldOps, publicOperations(pair.new), pair));
  return out;
}

/**
 * A route change that the resource's own move (rename, shortName, routePrefix: reported once for the resource)
 * explains whole: the operation's path is the old one under the new collection path.
 */
function moved(resources: Paired<ResourceMetadata>, ops: Paired<OperationMetadata>, f: Finding): boolean {
  if (f.kind !== 'route-changed' || resources.old.collectionPath === resources.new.collectionPath) return false;
  const { old, new: now } = resources;
  return (
    ops.old.method === ops.new.method && ops.new.path.replace(now.collectionPath, old.collectionPath) === ops.old.path
  );
}

const major = (version: string | undefined): number | undefined => {
  const m = /^v?(\d+)/.exec(version ?? '');
  return m ? Number(m[1]) : undefined;
};

/** The note when a breaking change is not announced by a higher major version (a 0.x version may break anything). */
function versionNote(apis: Paired<ApiMetadata>, findings: Finding[]): string | undefined {
  if (!findings.some((f) => f.severity === 'breaking')) return undefined;
  const [was, is] = [major(apis.old.version), major(apis.new.version)];
  if (was !== undefined && is !== undefined && (is > was || is === 0)) return undefined;
  return (
    `breaking changes, but api { version } goes ${apis.old.version ?? '(none)'} → ${apis.new.version ?? '(none)'}: ` +
    'bump its major version'
  );
}

export function diffApis(before: ApiMetadata, after: ApiMetadata): DiffReport {
  const apis = { old: before, new: after };
  const resources = pairResources(before.resources, after.resources);
  const findings: Finding[] = [
    ...resources.removed.map((r) => finding('resource-removed', r.name, 'removed', publicOperations(r).map(routeOf))),
    ...resources.added.map((r) => finding('resource-added', r.name, 'new resource', publicOperations(r).map(routeOf))),
    ...resources.pairs.flatMap((pair) => resourceFindings(apis, pair)),
    ...exposureFindings(apis),
  ];
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, findings.filter((f) => f.severity === s).length]));
  const note = versionNote(apis, findings);
  return {
    old: { title: before.title, ...(before.version ? { version: before.version } : {}) },
    new: { title: after.title, ...(after.version ? { version: after.version } : {}) },
    findings,
    counts: counts as Record<Severity, number>,
    ...(note ? { versionNote: note } : {}),
  };
}

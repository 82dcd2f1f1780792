/**
 * Content negotiation (docs/behaviour.md, "Representations"): a URL extension is tried first and Accept
 * must then be compatible with it; otherwise Accept (q-values honoured, by `negotiator`)
 * picks among the configured formats, `*∕*` or none giving the first one.
 */
import Negotiator from 'negotiator';
import { HttpError } from './errors.js';

export interface Format {
  /** Format name (`jsonld`, `json`) as configured. */
  name: string;
  mediaType: string;
}

const list = (types: string[]): string => types.map((t) => `"${t}"`).join(', ');

const flattened = new WeakMap<Record<string, string[]>, Format[]>();

function allFormats(formats: Record<string, string[]>): Format[] {
  let list = flattened.get(formats);
  if (!list) {
    list = Object.entries(formats).flatMap(([name, types]) => types.map((mediaType) => ({ name, mediaType })));
    flattened.set(formats, list);
  }
  return list;
}

/** Accept without media-type parameters other than q (`*∕*; charset=utf-8` means `*∕*`). */
const withoutParameters = (accept: string): string =>
  accept
    .split(',')
    .map((range) =>
      range
        .split(';')
        .filter((part, i) => i === 0 || /^\s*q\s*=/i.test(part))
        .join(';'),
    )
    .join(',');

/** Formats chosen, by format table, then extension and Accept: clients send the same few Accept headers. */
const chosenFormats = new WeakMap<Record<string, string[]>, Map<string, Format>>();
const CHOSEN_MAX = 256;

/**
 * The response format of a request, or a 404 (unknown extension) / 406 (unacceptable Accept). `servable`: the
 * formats the runtime could serve if configured (name → media type); a refusal of one of them says which
 * `formats` entry of config would serve it.
 */
export function negotiateOutput(
  formats: Record<string, string[]>,
  accept: string | undefined,
  extension: string | undefined,
  servable?: Record<string, string>,
): Format {
  let chosen = chosenFormats.get(formats);
  if (!chosen) chosenFormats.set(formats, (chosen = new Map()));
  const key = `${extension ?? ''}\u0000${accept ?? ''}`;
  let format = chosen.get(key);
  if (!format) {
    try {
      format = negotiate(formats, accept, extension); // throws for a 404 or 406: those are not remembered
    } catch (e) {
      throw servable ? withFormatsHint(e, formats, servable, accept, extension) : e;
    }
    if (chosen.size >= CHOSEN_MAX) chosen.clear();
    chosen.set(key, format);
  }
  return format;
}

function negotiate(
  formats: Record<string, string[]>,
  accept: string | undefined,
  extension: string | undefined,
): Format {
  let candidates = allFormats(formats);
  if (extension !== undefined) {
    candidates = candidates.filter((f) => f.name === extension);
    if (candidates.length === 0) throw new HttpError(404, `Format "${extension}" is not supported`);
  }
  if (!accept || accept.trim() === '' || accept === '*/*') return candidates[0];
  const chosen = new Negotiator({ headers: { accept: withoutParameters(accept) } }).mediaType(
    candidates.map((f) => f.mediaType),
  );
  if (!chosen) {
    const requested = accept.split(',')[0].split(';')[0].trim();
    throw new HttpError(
      406,
      `Requested format "${requested}" is not supported. Supported MIME types are ${list(candidates.map((f) => f.mediaType))}.`,
    );
  }
  return candidates.find((f) => f.mediaType === chosen)!;
}

/** A refusal whose detail also names the `formats` entry that would serve what was asked, when one would. */
function withFormatsHint(
  error: unknown,
  formats: Record<string, string[]>,
  servable: Record<string, string>,
  accept: string | undefined,
  extension: string | undefined,
): unknown {
  if (!(error instanceof HttpError)) return error;
  const asked =
    extension !== undefined
      ? [Object.hasOwn(servable, extension) ? extension : undefined]
      : (accept ?? '').split(',').map((range) => {
          const type = range.split(';')[0].trim().toLowerCase();
          return Object.keys(servable).find((name) => servable[name] === type);
        });
  const configured = (name: string): boolean => Object.hasOwn(formats, name) && formats[name].includes(servable[name]);
  const name = asked.find((n) => n !== undefined && !configured(n));
  if (name === undefined) return error;
  const entry = `${name}: ["${servable[name]}"]`;
  const kept = Object.entries(formats)
    .filter(([other]) => other !== name)
    .map(([other, types]) => `${other}: [${list(types)}]`);
  return new HttpError(
    error.status,
    `${error.detail.replace(/\.$/, '')}. To serve it, add ${entry} to the formats setting, with the formats kept: config { formats { ${[...kept, entry].join(', ')} } }.`,
    error.options,
  );
}

/** Checks a request body's Content-Type against the accepted media types (415 otherwise). */
export function checkInputType(contentType: string | undefined, accepted: string[], emptyHint?: string): void {
  if (!contentType) throw new HttpError(415, 'The "Content-Type" header must exist.');
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (accepted.length === 0 && emptyHint)
    throw new HttpError(415, `The content-type "${type}" is not supported. ${emptyHint}`);
  if (!accepted.includes(type))
    throw new HttpError(
      415,
      `The content-type "${type}" is not supported. Supported MIME types are ${list(accepted)}.`,
    );
}

/** Error documents: plain problem JSON when the client prefers JSON, the Hydra error otherwise. */
export function errorFlavour(accept: string | undefined): 'hydra' | 'problem' {
  if (!accept) return 'hydra';
  const chosen = new Negotiator({ headers: { accept: withoutParameters(accept) } }).mediaType([
    'application/ld+json',
    'application/problem+json',
    'application/json',
  ]);
  return chosen === 'application/problem+json' || chosen === 'application/json' ? 'problem' : 'hydra';
}

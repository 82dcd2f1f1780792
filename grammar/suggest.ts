/** "Did you mean …": the closest valid name to a misspelt one. */
import { distance } from 'fastest-levenshtein';

/**
 * The candidate closest to `word`, or undefined when none is close enough to be a plausible
 * typo. Case differences count for little (`getcollection` → `GetCollection`), a swap of two
 * neighbouring letters is one typo (`Pots` → `Post`), and a word
 * that is a prefix of exactly one candidate suggests it (`paginationItems` → …PerPage).
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestScore = Infinity;
  const prefixed: string[] = [];
  for (const c of candidates) {
    if (c === word) continue;
    const cl = c.toLowerCase();
    const score = cl === lower ? 0.5 : editDistance(lower, cl) + (distance(word, c) > distance(lower, cl) ? 0.1 : 0);
    // Ties go to the candidate sharing the longer prefix (`DSC` → `DESC`, not `ASC`).
    if (
      score < bestScore ||
      (score === bestScore && best !== undefined && sharedPrefix(lower, cl) > sharedPrefix(lower, best.toLowerCase()))
    ) {
      bestScore = score;
      best = c;
    }
    if (lower.length >= 4 && cl.startsWith(lower)) prefixed.push(c);
  }
  const limit = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
  if (best !== undefined && bestScore <= limit + 0.1) return best;
  if (prefixed.length === 1) return prefixed[0];
  return undefined;
}

/** " (did you mean 'x'?)" or "" — appended to messages. */
export const didYouMean = (suggestion: string | undefined): string =>
  suggestion ? `; did you mean '${suggestion}'?` : '';

/** Levenshtein distance, where two swapped neighbouring letters count as one edit (`Pots` → `Post`). */
function editDistance(a: string, b: string): number {
  const d = distance(a, b);
  if (d !== 2 || a.length !== b.length) return d;
  const diff = [...a].flatMap((ch, i) => (ch === b[i] ? [] : [i]));
  return diff.length === 2 && diff[1] === diff[0] + 1 && a[diff[0]] === b[diff[1]] && a[diff[1]] === b[diff[0]] ? 1 : d;
}

function sharedPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

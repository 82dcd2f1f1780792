/** The IRI a PostgreSQL relation column's key stands for, in SQL (store/postgres/references.ts, `iriOf`). */
import type { Reference } from '../store/postgres/references.js';

const literal = (v: string): string => `'${v.replace(/'/g, "''")}'`;

/** Characters encodeURIComponent leaves as they are. */
const UNRESERVED = literal("^[A-Za-z0-9_.!~*'()-]$");

/** The IRI of a key (`key`: SQL text) as `iriOf` spells it: the prefix and the key, URI-encoded as encodeURIComponent does. */
export function iriText(ref: Reference, key: string): string {
  const encoded =
    ref.keyType === 'int'
      ? key
      : `(SELECT string_agg(CASE WHEN t.c ~ ${UNRESERVED} THEN t.c ELSE upper(regexp_replace(encode(convert_to(t.c, 'UTF8'), 'hex'), '(..)', '%\\1', 'g')) END, '' ORDER BY t.i) FROM regexp_split_to_table(${key}, '') WITH ORDINALITY AS t(c, i))`;
  return `(${literal(ref.relation.keyPrefix)} || ${encoded})`;
}

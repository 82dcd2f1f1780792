/** JSON already encoded, spliced into a response as it is (pages of rendered members, rendering.ts). */
export class JsonText {
  constructor(readonly text: string) {}
}

/** What JSON.stringify gives for `object`, with the text of its JsonText values copied in as it is. */
export function objectText(object: Record<string, unknown>): string {
  let out = '';
  for (const [key, value] of Object.entries(object)) {
    if (value === undefined) continue;
    out += `${out ? ',' : '{'}${JSON.stringify(key)}:${value instanceof JsonText ? value.text : JSON.stringify(value)}`;
  }
  return out ? `${out}}` : '{}';
}

/** The response text of a body: JsonText as it is, anything else through JSON.stringify. */
export const jsonText = (body: unknown): string => (body instanceof JsonText ? body.text : JSON.stringify(body));

/** JSON already encoded, spliced into a response as it is (pages of rendered members, rendering.ts). */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * The text JSON.stringify gives for `{ ...head, [key]: value, ...tail }` when `value` is the JsonText
 * of that key's value: two JSON.stringify calls around the text copied in. No key may be an array index
 * ('0'), which JS objects would put first.
 */
export function spliced(
  head: Record<string, unknown>,
  key: string,
  value: JsonText,
  tail: Record<string, unknown>,
): JsonText {
  const before = JSON.stringify(head);
  const after = JSON.stringify(tail);
  const opening = before === '{}' ? '{' : `${before.slice(0, -1)},`;
  const closing = after === '{}' ? '}' : `,${after.slice(1)}`;
  return new JsonText(`${opening}${JSON.stringify(key)}:${value.text}${closing}`);
}

/** The response text of a body: JsonText as it is, anything else through JSON.stringify. */
export const jsonText = (body: unknown): string => (body instanceof JsonText ? body.text : JSON.stringify(body));

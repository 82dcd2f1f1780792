/** A completion item before it is placed in the document (index.ts turns it into the protocol's item). */
import type { CompletionItemKind } from 'vscode-languageserver';

export interface Item {
  label: string;
  /** What to insert: plain text, or a snippet when `snippet` is set. */
  text: string;
  kind: CompletionItemKind;
  snippet?: boolean;
  detail?: string;
  /** Markdown. */
  doc?: string;
  /** Sorts before the label: '0' first, '1' by default, '2' last. */
  sort?: string;
  /** Ask the editor for completions again once inserted (a value follows). */
  retrigger?: boolean;
}

/** A name as a string literal of the language. */
export const quote = (s: string): string => JSON.stringify(s);

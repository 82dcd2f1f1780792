/**
 * Where `apidsl serve` logs (stderr, so stdout holds only the banner and the route table): on a terminal one
 * line per request — method, path, status, milliseconds — coloured when the terminal supports it (NO_COLOR and
 * FORCE_COLOR respected, as Node's `hasColors()` reads them); elsewhere pino's JSON lines, one per event.
 */
import { styleText } from 'node:util';
import { pino } from 'pino';

type Style = Parameters<typeof styleText>[0];

interface LogEvent {
  level: number;
  msg?: string;
  method?: string;
  url?: string;
  status?: number;
  ms?: number;
  err?: { message?: string; stack?: string };
  /** A security expression that failed, its operation and why (a warning when the request's data is why). */
  expression?: string;
  operation?: string;
  reason?: string;
}

const ERROR_LEVEL = 50;
const WARNING_LEVEL = 40;

export function serveLogger(): pino.Logger {
  if (!process.stderr.isTTY) return pino(pino.destination(2));
  const colors = process.stderr.hasColors();
  const paint = (style: Style, text: string): string => (colors ? styleText(style, text) : text);
  // pino writes each event as one JSON line to any object with a write method.
  return pino(
    { base: undefined, timestamp: false },
    { write: (line: string) => process.stderr.write(terminalLine(JSON.parse(line) as LogEvent, paint)) },
  );
}

/** A status's colour: red for server errors, yellow for client errors, cyan for redirections. */
function statusStyle(status: number): Style {
  if (status >= 500) return 'red';
  if (status >= 400) return 'yellow';
  return status >= 300 ? 'cyan' : 'green';
}

/** One event as a terminal line. */
export function terminalLine(event: LogEvent, paint: (style: Style, text: string) => string): string {
  if (event.status !== undefined && event.level < ERROR_LEVEL) {
    const status = event.status;
    const style = statusStyle(status);
    return `${paint('bold', (event.method ?? '').padEnd(6))} ${event.url} ${paint(style, String(status))} ${paint('dim', `${event.ms} ms`)}\n`;
  }
  const where = event.method ? ` (${event.method} ${event.url})` : '';
  const expression = event.expression !== undefined ? ` [${event.operation ?? ''}: ${event.expression}]` : '';
  const reason = event.reason !== undefined ? `: ${event.reason}` : '';
  const detail = event.err?.stack ?? event.err?.message;
  const text = `${event.msg ?? ''}${reason}${where}${expression}${detail ? `\n${detail}` : ''}`;
  if (event.level >= ERROR_LEVEL) return `${paint('red', text)}\n`;
  return `${event.level >= WARNING_LEVEL ? paint('yellow', text) : text}\n`;
}

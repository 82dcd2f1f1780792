// @koa/cors 5 ships no types; this is the part of its API the server uses.
declare module '@koa/cors' {
  import type { Context, Middleware } from 'koa';
  interface Options {
    origin?: string | ((ctx: Context) => string | Promise<string>);
    allowMethods?: string | string[];
    allowHeaders?: string | string[];
    exposeHeaders?: string | string[];
    maxAge?: number | string;
    credentials?: boolean | ((ctx: Context) => boolean | Promise<boolean>);
    keepHeadersOnError?: boolean;
  }
  export default function cors(options?: Options): Middleware;
}

/**
 * Shared by the GraphQL suites (test/http/graphql*.test.ts): a query sent to `/graphql` of a running server, and
 * REST seeding.
 */
import { expect } from 'chai';
import { request } from './harness.js';

export interface GraphQlError {
  message: string;
  path?: (string | number)[];
  extensions?: { status?: number; violations?: { path: string; message: string }[] };
}

export interface GraphQlAnswer {
  data?: any;
  errors?: GraphQlError[];
}

/** POSTs `{ query, variables }` to `/graphql`; fails unless the answer is a GraphQL answer (200). */
export async function graphql(
  base: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<GraphQlAnswer> {
  const r = await request(base, 'POST', '/graphql', {
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  expect(r.status, r.text.slice(0, 500)).to.equal(200);
  return r.json as GraphQlAnswer;
}

/** As graphql(), and fails on any error: the data. */
export async function data(
  base: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<any> {
  const answer = await graphql(base, query, variables, headers);
  expect(answer.errors, JSON.stringify(answer.errors)).to.equal(undefined);
  return answer.data;
}

/** POSTs each item to `path` over REST (JSON-LD); fails unless each is created. */
export async function seed(
  base: string,
  path: string,
  items: object[],
  headers: Record<string, string> = {},
): Promise<void> {
  for (const item of items) {
    const r = await request(base, 'POST', path, { body: item, headers });
    expect(r.status, `POST ${path}: ${r.text}`).to.equal(201);
  }
}

/** The nodes of a cursor connection. */
export const nodesOf = (connection: { edges: { node: any }[] }): any[] => connection.edges.map((e) => e.node);

/**
 * Whether an instance answers from its in-process cache, seen from outside: a twin (the same service on the same
 * store, without cache or Redis) changes book 1 behind its back; a cached page does not show the change.
 */
import { expect } from 'chai';
import { request, type RunningServer } from './harness.js';
import { sleep } from './sse-client.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

async function patchTitle(server: RunningServer, title: string): Promise<void> {
  const patched = await request(server.url, 'PATCH', '/books/1', { body: JSON.stringify({ title }), headers: MERGE });
  expect(patched.status, patched.text).to.equal(200);
}

/** Whether `instance` answers /books/1 from its cache; the title is put back through it (every instance drops the page). */
export async function caches(instance: RunningServer, twin: RunningServer): Promise<boolean> {
  const title = async (): Promise<string> => (await request(instance.url, 'GET', '/books/1')).json.title;
  const seen = await title();
  await patchTitle(twin, `${seen}+`);
  const again = await title();
  await patchTitle(instance, seen);
  return again === seen;
}

/** Whether `instance` comes to answer from its cache within `ms` (it caches once it hears the others). */
export async function cachesSoon(instance: RunningServer, twin: RunningServer, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(100))
    if (await caches(instance, twin)) return true;
  return false;
}

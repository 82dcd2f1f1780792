/**
 * Mercure's tokens fail closed (server/realtime/jwt.ts): jose loads at the first token, and when it cannot load, a
 * token signed with the hub's own key is refused as InvalidToken (the hub answers 401), neither accepted nor
 * thrown as another error. Run in a child process whose module resolution refuses 'jose'; the same child without
 * that hook reads the token's selectors, so the token is valid and only the failure refuses it.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { publisherToken } from '../../server/realtime/jwt.js';
import { fromRoot } from '../support/paths.js';

const SECRET = 'a-mercure-key-long-enough-for-hs256-0123456789';

/** claimedSelectors of `token` in a fresh process (jose refused when `refuseJose`): what it returned or threw. */
function verifyInChild(
  token: string,
  refuseJose: boolean,
): { selectors?: string[]; thrown?: string; invalid?: boolean } {
  const hook = `export async function resolve(specifier, context, next) {
    if (specifier === 'jose') throw new Error('jose cannot be loaded');
    return next(specifier, context);
  }`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
  const module = pathToFileURL(fromRoot('dist/server/realtime/jwt.js')).href;
  const script = `const { claimedSelectors, InvalidToken } = await import(${JSON.stringify(module)});
    try { console.log(JSON.stringify({ selectors: await claimedSelectors(process.argv[1], ${JSON.stringify(SECRET)}, 'publish') })); }
    catch (e) { console.log(JSON.stringify({ thrown: e.message, invalid: e instanceof InvalidToken })); }`;
  const imports = refuseJose ? ['--import', `data:text/javascript,${encodeURIComponent(register)}`] : [];
  const r = spawnSync(process.execPath, [...imports, '--input-type=module', '-e', script, token], { encoding: 'utf8' });
  expect(r.status, r.stderr).to.equal(0);
  return JSON.parse(r.stdout) as { selectors?: string[]; thrown?: string; invalid?: boolean };
}

describe('Mercure tokens when jose cannot load', function () {
  this.timeout(60_000);

  it('refuses a token signed with the right key as InvalidToken; with jose, the same token is read', async () => {
    const token = await publisherToken(SECRET);
    expect(verifyInChild(token, false)).to.deep.equal({ selectors: ['*'] });
    expect(verifyInChild(token, true)).to.deep.equal({ thrown: 'jose cannot be loaded', invalid: true });
  });
});

/**
 * The behaviour every store shares (test/support/store-contract.ts), on every engine of
 * test/support/store-engines.ts. Each engine's own behaviour is tested in its folder (sqlite/, mongodb/).
 */
import { describeStoreContract } from '../support/store-contract.js';
import { STORE_ENGINES } from '../support/store-engines.js';

for (const engine of STORE_ENGINES) describeStoreContract(engine);

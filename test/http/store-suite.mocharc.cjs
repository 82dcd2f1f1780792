'use strict';
// The HTTP suite as a store's run takes it (APIDSL_TEST_STORE=mongodb|postgres, .ci/run): every HTTP test file but
// those that never use the suite's store, which the embedded run has already run as they are
// (test/http/suite-store.ts says why and how that list is checked).
const independent = require('./store-independent.json');

module.exports = {
  spec: ['dist/test/http/**/*.test.js'],
  ignore: independent.map((name) => `dist/test/http/${name}.test.js`),
  timeout: 60000,
};

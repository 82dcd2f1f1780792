// The types of `#chevrotain` (package.json "imports"): chevrotain's own single-file build, copied into
// dist/vendor/chevrotain/ by `npm run build` (scripts/vendor-files.mjs), has the package's API and types.
export * from 'chevrotain';

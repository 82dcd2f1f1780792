/**
 * Browser files the server serves from packages that are only development dependencies (Swagger UI for /docs,
 * GraphiQL and React for the GraphiQL page): `npm run build` copies them into `dist/vendor/<folder>/` (scripts/vendor-files.mjs), which
 * the npm package ships, so an installed apidsl serves them without those packages and without a CDN.
 */
import { packageFile } from '../package-folder.js';

export interface VendoredFile {
  /** The package that ships the file, and the file's path inside it. */
  from: { package: string; path: string };
  /** Its name in `dist/vendor/<folder>/`. */
  name: string;
}

export const VENDORED_FILES: Record<string, readonly VendoredFile[]> = {
  // Swagger UI for the HTML reference at /docs (docs-html.ts): vendored so that an installed apidsl does not
  // depend on swagger-ui-dist, whose dependency @scarf/scarf runs a telemetry script at install.
  'swagger-ui': ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-16x16.png', 'favicon-32x32.png'].map((name) => ({
    from: { package: 'swagger-ui-dist', path: name },
    name,
  })),
  graphiql: [
    { from: { package: 'react', path: 'umd/react.production.min.js' }, name: 'react.production.min.js' },
    { from: { package: 'react-dom', path: 'umd/react-dom.production.min.js' }, name: 'react-dom.production.min.js' },
    { from: { package: 'graphiql', path: 'graphiql.min.js' }, name: 'graphiql.min.js' },
    { from: { package: 'graphiql', path: 'graphiql.min.css' }, name: 'graphiql.min.css' },
  ],
};

/** `dist/vendor/<folder>/` of this package. */
export const vendorFolder = (folder: string): string => packageFile('dist', 'vendor', folder);

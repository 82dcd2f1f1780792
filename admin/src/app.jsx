// HydraAdmin over the API this page is served by. The server tells the page (admin-page.ts): the title, whether the
// API authenticates (then the sign-in page takes a bearer token, auth.js), and each collection's page size, which
// the lists use so that a page of the admin is a page of the server (the server ignores `itemsPerPage` unless
// client page size is on for that collection).
import React, { useEffect, useMemo, useState } from 'react';
import { HydraAdmin, ListGuesser, ResourceGuesser, fetchHydra, hydraDataProvider } from '@api-platform/admin';
import { fetchJsonLd, getDocumentationUrlFromHeaders, parseHydraDocumentation } from '@api-platform/api-doc-parser';
import jsonld from 'jsonld';
import { Loading, Pagination } from 'react-admin';
import { authHeaders, authProvider } from './auth.js';
import { addEnums } from './enums.js';
import { writableBody } from './request-body.js';
import { SignIn } from './sign-in.jsx';

const entrypoint = `${window.location.origin}/`;

/** A request's own headers (a PATCH's Content-Type) and the bearer token. */
function withAuth(headers) {
  const merged = new Headers(headers ?? {});
  for (const [name, value] of Object.entries(authHeaders())) merged.set(name, value);
  return merged;
}

/** The documentation as API Platform's parser reads it, plus the enum values it does not read (enums.js). */
async function parseDocumentation(url) {
  const parsed = await parseHydraDocumentation(url, { headers: authHeaders });
  const docsUrl = new URL(getDocumentationUrlFromHeaders(parsed.response.headers), url).href;
  const fetched = await fetchJsonLd(docsUrl, { headers: authHeaders });
  const docs = await jsonld.expand(fetched.body, { base: docsUrl });
  return { ...parsed, api: addEnums(parsed.api, docs) };
}

let documented = [];

const dataProvider = hydraDataProvider({
  entrypoint,
  httpClient: (url, options = {}) =>
    fetchHydra(url, {
      ...options,
      headers: () => withAuth(options.headers),
      ...(options.body === undefined ? {} : { body: writableBody(documented, url.href ?? url, options.body) }),
    }),
  apiDocumentationParser: async (url) => {
    const parsed = await parseDocumentation(url);
    documented = parsed.api.resources ?? [];
    return parsed;
  },
  mercure: false,
});

/** A collection's list at the server's page size; the per-page choice only where the server honours it. */
function listFor(paging) {
  if (!paging) return ListGuesser;
  const options = paging.clientItemsPerPage ? [paging.itemsPerPage, 10, 25, 50, 100] : [];
  const pagination = <Pagination rowsPerPageOptions={[...new Set(options)].sort((a, b) => a - b)} />;
  const List = (props) => <ListGuesser perPage={paging.itemsPerPage} pagination={pagination} {...props} />;
  return List;
}

export function App({ config }) {
  const [resources, setResources] = useState();
  const [failure, setFailure] = useState();
  useEffect(() => {
    dataProvider
      .introspect()
      .then(({ data }) => setResources((data.resources ?? []).filter((r) => !r.deprecated)))
      .catch(setFailure);
  }, []);
  const children = useMemo(
    () =>
      resources?.map((r) => (
        <ResourceGuesser key={r.name} name={r.name} list={listFor(config.paging[new URL(r.url).pathname])} />
      )),
    [resources, config],
  );
  if (failure) return <p role="alert">The admin cannot read this API's documentation: {String(failure.message)}</p>;
  if (!children) return <Loading />;
  return (
    <HydraAdmin
      entrypoint={entrypoint}
      dataProvider={dataProvider}
      title={config.title}
      disableTelemetry
      {...(config.signIn ? { authProvider, loginPage: SignIn, requireAuth: true } : {})}
    >
      {children}
    </HydraAdmin>
  );
}

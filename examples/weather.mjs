// Custom provider of the Weather resource in places.api:
//
//   Get weather {
//     uriTemplate: "/geo/places/{placeId}/weather"
//     provider: "./weather.mjs#currentWeather"
//   }
//
// A provider is called as `(ctx) => data | null | paginator`. `ctx.uriVariables` holds the
// placeholders of the path (here `placeId`), `ctx.request` the HTTP request (`method`, `url`,
// `headers`, `query`, `body`, `attributes`). Returning null answers 404.
//
// A real provider would call a weather service. This one derives stable values from the place id, so
// the example needs no network and always gives the same answer for the same place.
//
// The JSDoc types below are editor hints only; nothing here imports apidsl at run time.

/** Time of the (made-up) observation. */
export const OBSERVED_AT = '2024-06-01T12:00:00+00:00';

const CONDITIONS = ['clear', 'cloudy', 'rain', 'snow', 'fog', 'storm'];

/**
 * A small integer hash: the same place id always gives the same "random" numbers.
 * @param {number} n
 * @param {number} salt
 */
function mix(n, salt) {
  let h = (n * 2654435761 + salt * 40503) >>> 0;
  h ^= h >>> 15;
  h = Math.imul(h, 2246822519) >>> 0;
  h ^= h >>> 13;
  return h >>> 0;
}

/**
 * Reads one query parameter whether `query` is a plain object or a URLSearchParams.
 * @param {unknown} query
 * @param {string} name
 */
function queryParam(query, name) {
  if (!query) return undefined;
  if (typeof (/** @type {any} */ (query).get) === 'function') return /** @type {any} */ (query).get(name) ?? undefined;
  const value = /** @type {Record<string, unknown>} */ (query)[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * GET /geo/places/{placeId}/weather[?units=metric|imperial]
 * @param {import('apidsl').ProviderContext} ctx
 */
export function currentWeather(ctx) {
  const placeId = Number(ctx.uriVariables.placeId);
  // Place ids start at 1: there is never weather for place 0. (This provider does not look the
  // place up, so any other id gets weather; the path requirement already rejects non-numbers.)
  if (!Number.isInteger(placeId) || placeId < 1) return null;

  const units = queryParam(ctx.request?.query, 'units') === 'imperial' ? 'imperial' : 'metric';
  const celsius = ((mix(placeId, 1) % 450) - 100) / 10; // -10.0 … 34.9 °C
  const kmh = (mix(placeId, 2) % 800) / 10; //   0.0 … 79.9 km/h
  const stationCode = `ST-${String(mix(placeId, 3) % 10000).padStart(4, '0')}`;

  return {
    placeId,
    place: `/geo/places/${placeId}`,
    station: `/weather_stations/${stationCode}`,
    observedAt: OBSERVED_AT,
    units,
    temperature: units === 'imperial' ? Math.round(((celsius * 9) / 5 + 32) * 10) / 10 : celsius,
    humidity: 20 + (mix(placeId, 4) % 81), // 20 … 100 %
    windSpeed: units === 'imperial' ? Math.round((kmh / 1.609344) * 10) / 10 : kmh,
    condition: CONDITIONS[mix(placeId, 5) % CONDITIONS.length],
  };
}

// Enum choices. The Hydra documentation gives an enum property's values as a second range, an OWL enumerated
// datatype (`owl:oneOf`, docs/behaviour.md, "Representations"); API Platform's documentation parser reads
// enums from OpenAPI only, so this reads them from the same document and hands them to the fields as choices.
const ONE_OF = 'http://www.w3.org/2002/07/owl#oneOf';
const RANGE = 'http://www.w3.org/2000/01/rdf-schema#range';
const PROPERTY = 'http://www.w3.org/ns/hydra/core#property';
const SUPPORTED_PROPERTY = 'http://www.w3.org/ns/hydra/core#supportedProperty';
const SUPPORTED_CLASS = 'http://www.w3.org/ns/hydra/core#supportedClass';

/** property IRI → its values, from the expanded documentation. */
function enumValues(docs) {
  const values = new Map();
  for (const cls of docs?.[0]?.[SUPPORTED_CLASS] ?? [])
    for (const supported of cls[SUPPORTED_PROPERTY] ?? []) {
      const property = supported[PROPERTY]?.[0];
      for (const range of property?.[RANGE] ?? []) {
        const list = range[ONE_OF]?.[0]?.['@list'];
        if (list)
          values.set(
            property['@id'],
            list.map((v) => v['@value']),
          );
      }
    }
  return values;
}

/** Sets `field.enum` (label → value, as the admin's inputs and fields read it) on every enum field. */
export function addEnums(api, docs) {
  const values = enumValues(docs);
  for (const resource of api.resources ?? [])
    for (const field of resource.fields ?? []) {
      const list = values.get(field.id);
      if (list) field.enum = Object.fromEntries(list.map((v) => [String(v), v]));
    }
  return api;
}

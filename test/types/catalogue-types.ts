/**
 * Compile-time checks of the typed option catalogue (grammar/catalogue/options.ts): option names and value
 * types come out of the table, the accessor of server/metadata/options.ts returns them without a type
 * argument, and every catalogue default is a value of its option's type. The build fails otherwise.
 */
import type {
  DefaultedOptionName,
  GlobalOptionName,
  OptionName,
  OptionValue,
  PhpArray,
} from '../../grammar/catalogue/index.js';
import type { OptionRow } from '../../grammar/catalogue/options.js';
import type { ValueOf } from '../../grammar/catalogue/types.js';
import { optionValue, writtenOption } from '../../server/metadata/options.js';
import type { OperationMetadata, Settings } from '../../server/metadata/types.js';
import type { Equal, Expect } from './assert.js';

/** Type-checked, never called: what the accessor returns for some options, without a type argument. */
export function accessorResults(op: OperationMetadata, settings: Settings) {
  // @ts-expect-error: not an option of the catalogue
  optionValue(op, settings, 'paginationEnable');
  // @ts-expect-error: `config { defaults }` may set this option, so the settings are needed
  optionValue(op, 'paginationEnabled');
  return {
    enabled: optionValue(op, settings, 'paginationEnabled'),
    perPage: optionValue(op, settings, 'paginationItemsPerPage'),
    maximum: optionValue(op, settings, 'paginationMaximumItemsPerPage'),
    output: optionValue(op, 'output'),
    status: writtenOption(op, 'status'),
  };
}
type Results = ReturnType<typeof accessorResults>;
export type Accessor = [
  // The option's type, never unset when the catalogue has a default.
  Expect<Equal<Results['enabled'], boolean>>,
  Expect<Equal<Results['perPage'], number>>,
  Expect<Equal<Results['maximum'], number | undefined>>,
  Expect<Equal<Results['output'], PhpArray | string | false | undefined>>,
  Expect<Equal<Results['status'], number | undefined>>,
];

// Value types follow the catalogue's types.
export type ValueTypes = [
  Expect<Equal<OptionValue<'paginationEnabled'>, boolean>>,
  Expect<Equal<OptionValue<'paginationItemsPerPage'>, number>>,
  Expect<Equal<OptionValue<'description'>, string>>,
  Expect<Equal<OptionValue<'paginationType'>, 'page' | 'cursor'>>,
  Expect<Equal<OptionValue<'filters'>, string[]>>,
  Expect<Equal<OptionValue<'requirements'>, Record<string, string>>>,
  Expect<Equal<OptionValue<'order'>, PhpArray>>,
  Expect<Equal<OptionValue<'input'>, PhpArray | string | false>>,
  Expect<Equal<OptionValue<'messenger'>, boolean | 'input' | 'persist'>>,
  Expect<Equal<OptionValue<'paginationViaCursor'>, { field: string; direction: string }[]>>,
  Expect<Equal<OptionValue<'cacheHeaders'>['vary'], string[] | undefined>>,
  Expect<Equal<OptionValue<'parameters'>[string]['filter'], string>>,
];

// Every catalogue default is a value of its option's type (the names of those that are not: none).
type DefaultMisfit<R extends OptionRow> = R extends { default: infer D }
  ? D extends ValueOf<R['type']>
    ? never
    : R['name']
  : never;
export type Defaults = Expect<Equal<DefaultMisfit<OptionRow>, never>>;

// Names: the table's rows, and the subsets the accessor relies on.
export type Names = [
  Expect<Equal<Extract<'bulk' | 'bulkk', OptionName>, 'bulk'>>,
  Expect<
    Equal<
      Extract<'paginationEnabled' | 'urlGenerationStrategy', GlobalOptionName>,
      'paginationEnabled' | 'urlGenerationStrategy'
    >
  >,
  Expect<Equal<Extract<'description' | 'read', DefaultedOptionName>, 'read'>>,
];

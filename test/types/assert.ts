/**
 * Type-level assertions for the compile-time checks of test/types/: `type _ = Expect<Equal<A, B>>` stops
 * the build (`tsc`) when A and B are not the same type. Nothing here runs.
 */

/** True when A and B are identical (not merely assignable one way). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only when T is `true`. */
export type Expect<T extends true> = T;

// randexp 0.6 ships no types; this is the part of its API the documentation uses.
declare module 'randexp' {
  export default class RandExp {
    constructor(pattern: RegExp | string, flags?: string);
    /** Picks an integer in [a, b]; replaced to make generation deterministic. */
    randInt: (a: number, b: number) => number;
    max: number;
    gen(): string;
  }
}

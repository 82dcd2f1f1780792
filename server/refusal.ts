/**
 * Why a command cannot do what it was asked, in a sentence for the person who ran it (a setting that cannot work,
 * a file that cannot be used): the command line prints its message as one line, not as a crash
 * (cli/start-failure.ts).
 */
export class Refusal extends Error {}

/** The corpus of change pairs of `apidsl diff` (test/diff/pairs/<pair>/old.api, new.api, expected.json). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from './paths.js';

/** What a reviewer expects of a pair: every finding (kind, subject, severity), and whether the version note shows. */
export interface ExpectedDiff {
  description: string;
  findings: { severity: string; kind: string; subject: string }[];
  versionNote: boolean;
}

export const PAIRS_DIR = fromRoot('test/diff/pairs');
export const PAIRS = readdirSync(PAIRS_DIR).sort();

export const pairFile = (pair: string, file: 'old.api' | 'new.api'): string => join(PAIRS_DIR, pair, file);

export const expectedOf = (pair: string): ExpectedDiff =>
  JSON.parse(readFileSync(join(PAIRS_DIR, pair, 'expected.json'), 'utf8')) as ExpectedDiff;

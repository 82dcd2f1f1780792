/**
 * A diff report as text (a terminal), Markdown (a pull-request comment) or JSON (a program): the same findings,
 * most severe first, and the migration plan of each store.
 */
import { SEVERITIES, type Finding } from './findings.js';
import type { DiffReport } from './index.js';
import type { MigrationAction, MigrationPlan } from './migration.js';

/** What `apidsl migrate` does with a step, for a reader of the Markdown. */
const ACTION_WORDS: Record<MigrationAction, string> = {
  applies: '`apidsl migrate` applies',
  checks: '`apidsl migrate` applies when every stored item fits, else refuses (the query finds those in the way)',
  fills: '`apidsl migrate` fills the default where items lack it',
  'by-hand': 'not done by `apidsl migrate`; by hand',
};

export type DiffFormat = 'text' | 'json' | 'markdown';

export interface DiffOutput extends DiffReport {
  migration: MigrationPlan[];
}

const bySeverity = (findings: Finding[]): Finding[] =>
  [...findings].sort((a, b) => SEVERITIES.indexOf(b.severity) - SEVERITIES.indexOf(a.severity));

const versions = (r: DiffReport): string => `${r.old.version ?? '(no version)'} → ${r.new.version ?? '(no version)'}`;
const summary = (r: DiffReport): string =>
  `${r.counts.breaking} breaking, ${r.counts.warning} warning${r.counts.warning === 1 ? '' : 's'}, ${r.counts.info} info`;

function text(r: DiffOutput): string {
  const lines = [`${r.new.title} ${versions(r)}: ${summary(r)}`];
  if (r.versionNote) lines.push(`note: ${r.versionNote}`);
  for (const f of bySeverity(r.findings)) {
    const who = f.audiences.length > 0 ? ` [${f.audiences.join(', ')}]` : '';
    lines.push(`${f.severity.padEnd(8)} ${f.kind}${who} ${f.subject}: ${f.detail}`);
    if (f.routes.length > 0) lines.push(`         ${f.routes.join(', ')}`);
  }
  for (const plan of r.migration) {
    if (plan.steps.length === 0) continue;
    lines.push('', `migration (${plan.store}):`);
    for (const s of plan.steps) {
      lines.push(`  ${s.action.padEnd(8)} ${s.resource}: ${s.change}`);
      for (const c of s.commands) lines.push(`    ${c}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function markdown(r: DiffOutput): string {
  const lines = [`### API changes: ${cell(r.new.title)} ${versions(r)}`, '', `**${summary(r)}**`];
  if (r.versionNote) lines.push('', `> [!WARNING]`, `> ${r.versionNote}`);
  if (r.findings.length > 0) {
    lines.push('', '| severity | change | who | subject | detail | routes |', '| --- | --- | --- | --- | --- | --- |');
    for (const f of bySeverity(r.findings)) {
      const routes = f.routes.map((x) => `\`${x}\``).join('<br>');
      lines.push(
        `| ${f.severity} | \`${f.kind}\` | ${f.audiences.join(', ')} | ${cell(f.subject)} | ${cell(f.detail)} | ${routes} |`,
      );
    }
  }
  for (const plan of r.migration) {
    if (plan.steps.length === 0) continue;
    const lang = plan.store === 'mongodb' ? 'js' : 'sql';
    lines.push('', `<details><summary>Migration (${plan.store})</summary>`, '');
    for (const s of plan.steps) {
      lines.push(`- ${ACTION_WORDS[s.action]}: ${cell(s.resource)}: ${cell(s.change)}`);
      if (s.commands.length > 0) lines.push('', `  \`\`\`${lang}`, ...s.commands.map((c) => `  ${c}`), '  ```');
    }
    lines.push('', '</details>');
  }
  return `${lines.join('\n')}\n`;
}

export function renderDiff(output: DiffOutput, format: DiffFormat): string {
  if (format === 'json') return `${JSON.stringify(output, null, 2)}\n`;
  return format === 'markdown' ? markdown(output) : text(output);
}

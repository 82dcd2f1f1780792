/**
 * Loaded with `node --import` into a command a benchmark times (import.ts): when the process exits, it writes its
 * CPU time (user and system, µs) to the file APIDSL_BENCH_CPU names, which the benchmark reads once it ended.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.APIDSL_BENCH_CPU;
if (file) process.on('exit', () => writeFileSync(file, JSON.stringify(process.cpuUsage())));

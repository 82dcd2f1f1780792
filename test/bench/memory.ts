/**
 * Peak memory of the server while it answers a whole collection (`?pagination=false`): the
 * document is streamed, so the resident set should stay flat whatever the collection's size.
 * The server runs in this process; the client reads the response as a stream and keeps only
 * its byte count, so what grows is the server's.
 */
import { get } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface StreamMemory {
  baselineMb: number;
  peakMb: number;
  documentMb: number;
  seconds: number;
}

const rssMb = (): number => process.memoryUsage().rss / 1024 / 1024;

export async function measureStreamMemory(url: string): Promise<StreamMemory> {
  global.gc?.();
  const baselineMb = rssMb();
  let peakMb = baselineMb;
  const sampler = setInterval(() => {
    peakMb = Math.max(peakMb, rssMb());
  }, 10);
  const started = performance.now();
  try {
    const bytes = await new Promise<number>((resolve, reject) => {
      get(url, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${url} answered ${res.statusCode}`));
        let n = 0;
        res.on('data', (chunk: Buffer) => {
          n += chunk.length;
        });
        res.on('end', () => resolve(n));
        res.on('error', reject);
      }).on('error', reject);
    });
    return {
      baselineMb,
      peakMb: Math.max(peakMb, rssMb()),
      documentMb: bytes / 1024 / 1024,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    clearInterval(sampler);
  }
}

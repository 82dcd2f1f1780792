/**
 * A package as npm takes it (`npm install http://host/sdk.tgz`): a gzipped POSIX tar (ustar) whose entries sit
 * under `package/`. Reproducible: every entry has the same time and mode, so one API gives the same bytes.
 */
import { gzipSync } from 'node:zlib';
import type { PackageFile } from './package.js';

const BLOCK = 512;

/** One ustar header: the fields npm and tar read (name, mode, size, time, type), the checksum over the block. */
function header(name: string, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const field = (offset: number, length: number, text: string) => block.write(text, offset, length, 'ascii');
  const octal = (offset: number, length: number, value: number) =>
    field(offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
  if (Buffer.byteLength(name) > 100) throw new Error(`${name}: a name of more than 100 bytes`);
  block.write(name, 0, 100, 'utf8');
  octal(100, 8, 0o644);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, size);
  octal(136, 12, 0);
  field(148, 8, ' '.repeat(8)); // the checksum counts its own field as spaces
  field(156, 1, '0');
  field(257, 6, 'ustar\0');
  field(263, 2, '00');
  let sum = 0;
  for (const byte of block) sum += byte;
  field(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return block;
}

export function tarball(files: readonly PackageFile[]): Buffer {
  const parts: Buffer[] = [];
  for (const { path, text } of files) {
    const body = Buffer.from(text, 'utf8');
    parts.push(header(`package/${path}`, body.length), body, Buffer.alloc((BLOCK - (body.length % BLOCK)) % BLOCK));
  }
  parts.push(Buffer.alloc(2 * BLOCK)); // the end of the archive: two empty blocks
  return gzipSync(Buffer.concat(parts), { level: 9 });
}

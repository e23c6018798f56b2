// `kemu logs <name> [-f]`: prints DIR/logs/<name>.log; -f keeps following it (like tail -f) until Ctrl-C.
import fs from 'node:fs';
import path from 'node:path';
import { parseFlags } from '@kemu/base';
import { DATA_DIR_FLAG, resolveDataDir } from '../options.ts';
import { UsageError } from './errors.ts';

const FLAGS = {
  ...DATA_DIR_FLAG,
  f: { type: 'bool', default: false, usage: 'Follow the log' },
  follow: { type: 'bool', default: false, usage: 'Follow the log' },
} as const;

export async function logs(argv: string[]): Promise<number> {
  const f = parseFlags(FLAGS, argv);
  const name = f._[0];
  if (!name || f._.length > 1) throw new UsageError('usage: kemu logs <name> [-f] [--data-dir DIR]');
  const dir = path.join(resolveDataDir(f['data-dir']), 'logs');
  const file = path.join(dir, `${name}.log`);
  if (!fs.existsSync(file)) {
    const known = fs.existsSync(dir) ? fs.readdirSync(dir).filter((x) => x.endsWith('.log')).map((x) => x.slice(0, -4)) : [];
    throw new UsageError(`no log for "${name}" in ${dir}${known.length ? `; known: ${known.join(', ')}` : ''}`);
  }
  let pos = 0;
  const pump = () => {
    const size = fs.statSync(file).size;
    if (size < pos) pos = 0; // truncated
    if (size === pos) return;
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(Math.min(size - pos, 1 << 20));
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      pos += n;
      process.stdout.write(buf.subarray(0, n));
    } finally {
      fs.closeSync(fd);
    }
  };
  do pump();
  while (fs.statSync(file).size > pos);
  if (!f.f && !f.follow) return 0;
  await new Promise<void>((resolve) => {
    const t = setInterval(pump, 200);
    const stop = () => {
      clearInterval(t);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}

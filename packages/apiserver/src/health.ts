// /healthz, /livez, /readyz with Kubernetes' output: "ok", or with ?verbose one "[+]name ok" line per
// check and a summary line; /readyz/<check> runs one check; ?exclude=<check> skips one.
export type Check = () => boolean | Promise<boolean>;

export async function runHealth(endpoint: string, checks: Record<string, Check>, sub: string | undefined, query: URLSearchParams): Promise<{ code: number; text: string }> {
  const excluded = new Set(query.getAll('exclude'));
  const names = Object.keys(checks).filter((n) => !excluded.has(n));
  if (sub !== undefined) {
    const check = checks[sub];
    if (!check) return { code: 404, text: '404 page not found\n' };
    const ok = await safe(check);
    return ok ? { code: 200, text: 'ok' } : { code: 500, text: `internal server error: ${sub} check failed\n` };
  }
  const results: [string, boolean][] = [];
  for (const n of names) results.push([n, await safe(checks[n] as Check)]);
  const healthy = results.every(([, ok]) => ok);
  if (!query.has('verbose') && healthy) return { code: 200, text: 'ok' };
  const lines = results.map(([n, ok]) => (ok ? `[+]${n} ok` : `[-]${n} failed: reason withheld`));
  lines.push(healthy ? `${endpoint} check passed` : `${endpoint} check failed`);
  return { code: healthy ? 200 : 500, text: lines.join('\n') + '\n' };
}

async function safe(c: Check): Promise<boolean> {
  try {
    return await c();
  } catch {
    return false;
  }
}

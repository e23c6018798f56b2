// What `journalctl -u kube-apiserver` shows: klog text lines by default, Kubernetes' JSON lines with
// --logging-format=json; every binary takes the flag and refuses an unknown format as Kubernetes does.
import { afterAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { freePort } from '@kemu/base/testing/ports';
import { BIN, killAll, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';

afterAll(killAll);

const KLOG = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ [\w.-]+\.ts:\d+\] /;

async function apiserver(args: string[]): Promise<{ proc: Proc; url: string }> {
  const port = await freePort();
  const proc = startProcess('apiserver', BIN.apiserver, ['--bind-address=127.0.0.1', '--secure-port=0', `--insecure-port=${port}`, '--datastore-endpoint=memory://', ...args]);
  const url = `http://127.0.0.1:${port}`;
  await waitFor('apiserver ready', async () => {
    if (proc.child.exitCode !== null) throw new Error(`apiserver exited: ${proc.output()}`);
    const r = await request(`${url}/readyz`);
    await r.body.text();
    return r.statusCode === 200;
  }, 30_000);
  return { proc, url };
}

describe('--logging-format', () => {
  it('text (the default): klog lines with the caller file:line and the pid; requests only from --v=2', async () => {
    const { proc, url } = await apiserver(['--v=2']);
    const r = await request(`${url}/api/v1/namespaces/default/pods`, { headers: { 'user-agent': 'logging-test/1.0' } });
    await r.body.text();
    const lines = await waitFor('the request line', () => {
      const ls = proc.output().split('\n').filter((l) => l !== '');
      return ls.some((l) => l.includes('userAgent="logging-test/1.0"')) ? ls : undefined;
    });
    const serving = lines.find((l) => l.includes('"Serving insecurely'));
    expect(serving).toMatch(KLOG);
    expect(serving).toMatch(new RegExp(`^I\\d{4} [\\d:.]+ +${proc.child.pid} main\\.ts:\\d+\\] "Serving insecurely`));
    const http = lines.find((l) => l.includes('userAgent="logging-test/1.0"'));
    expect(http).toMatch(/^I.* server\.ts:\d+\] "HTTP" verb="LIST" URI="\/api\/v1\/namespaces\/default\/pods" latency="[\d.]+(ms|µs)" userAgent="logging-test\/1.0" srcIP="127\.0\.0\.1:\d+" resp=200$/);
    // Every line of the process is a klog line (no JSON left over).
    for (const l of lines) expect(l).toMatch(KLOG);
    await proc.kill();
  }, 60_000);

  it('json: one component-base JSON object per line', async () => {
    const { proc, url } = await apiserver(['--logging-format=json', '--v=2']);
    const r = await request(`${url}/api/v1/namespaces`);
    await r.body.text();
    const objs = await waitFor('the request line', () => {
      const os = proc.output().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
      return os.some((o) => o.URI === '/api/v1/namespaces') ? os : undefined;
    });
    for (const o of objs) {
      expect(typeof o.ts).toBe('number');
      expect(o.caller).toMatch(/^[\w.-]+\/[\w.-]+\.ts:\d+$/);
      expect(typeof o.msg).toBe('string');
    }
    expect(Math.abs((objs[0]?.ts as number) - Date.now())).toBeLessThan(120_000);
    expect(objs.find((o) => o.URI === '/api/v1/namespaces')).toMatchObject({ msg: 'HTTP', v: 2, resp: 200 });
    await proc.kill();
  }, 60_000);

  it.each([
    ['kube-apiserver', BIN.apiserver, []],
    ['kube-controller-manager', BIN.controllerManager, ['--master=http://127.0.0.1:1']],
    ['kube-scheduler', BIN.scheduler, ['--master=http://127.0.0.1:1']],
    ['kubelet', BIN.kubelet, ['--master=http://127.0.0.1:1']],
    ['kube-addon-manager', BIN.addonManager, ['--master=http://127.0.0.1:1']],
  ])('%s lists the flag and refuses an unknown format with Kubernetes\' message (exit 1)', async (_name, bin, args) => {
    const help = startProcess('help', bin, ['--help']);
    expect(await help.exited).toBe(0);
    expect(help.output()).toContain('--logging-format string\n            Sets the log format. Permitted formats: "json", "text". (default "text")');
    const bad = startProcess('bad', bin, [...args, '--logging-format=xml']);
    expect(await bad.exited).toBe(1);
    expect(bad.output()).toContain('format: Invalid value: "xml": Unsupported log format');
  }, 60_000);

  it('kemu up refuses an unknown format before starting anything', async () => {
    const bad = startProcess('kemu-bad', BIN.kemu, ['up', '--logging-format=xml', '--data-dir=/nonexistent/kemu-logging-test']);
    expect(await bad.exited).not.toBe(0);
    expect(bad.output()).toContain('format: Invalid value: "xml": Unsupported log format');
  }, 60_000);
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMPOSE_CONFIG, checkHaproxyConfig, composeHaproxyParams, findHaproxy, localHaproxyParams, renderHaproxyConfig } from './haproxy.ts';

const haproxy = findHaproxy();

describe('haproxy config', () => {
  it('the committed compose config is the template rendered for compose', () => {
    expect(fs.readFileSync(COMPOSE_CONFIG, 'utf8')).toBe(renderHaproxyConfig(composeHaproxyParams()));
  });

  it('checks /readyz with quick fall/rise and keeps watches open for an hour', () => {
    const cfg = renderHaproxyConfig(localHaproxyParams(6443, 8404, [{ name: 'apiserver-0', port: 16443 }]));
    expect(cfg).toContain('option httpchk GET /readyz');
    expect(cfg).toContain('http-check expect status 200');
    expect(cfg).toMatch(/default-server inter 1s fall 2 rise 1/);
    expect(cfg).toContain('timeout tunnel 1h');
    expect(cfg).toContain('balance roundrobin');
    expect(cfg).toContain('server apiserver-0 127.0.0.1:16443 check');
  });

  it('rejects an unknown placeholder', () => {
    expect(() => renderHaproxyConfig(composeHaproxyParams(), 'bind {{nope}}')).toThrow(/unknown placeholder/);
  });

  it.skipIf(!haproxy)('haproxy -c accepts both variants' + (haproxy ? '' : ' (skipped: haproxy is not installed; apt-get install haproxy)'), () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-haproxy-'));
    try {
      const local = path.join(dir, 'local.cfg');
      fs.writeFileSync(local, renderHaproxyConfig(localHaproxyParams(6443, 8404, [0, 1, 2].map((i) => ({ name: `apiserver-${i}`, port: 16443 + i })))));
      expect(checkHaproxyConfig(haproxy!, local)).toBeUndefined();
      expect(checkHaproxyConfig(haproxy!, COMPOSE_CONFIG)).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

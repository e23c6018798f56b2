// `kemu compose` where Docker is missing or unusable: the failure names the step, the log and the fix, exit 1,
// and nothing is started. A fake `docker` on PATH stands for an engine that does not answer.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KEMU_BIN } from '../topology.ts';
import { composeServices } from '../commands/compose.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-compose-cli-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function kemu(args: string[], pathDirs: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [KEMU_BIN, ...args], { env: { ...process.env, PATH: pathDirs.join(':') }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('kemu compose', () => {
  it('without a docker command: fails at "checking Docker" with the install line and the log', async () => {
    const empty = path.join(dir, 'empty-bin');
    fs.mkdirSync(empty);
    const r = await kemu(['compose', 'up', `--data-dir=${path.join(dir, 'a')}`], [empty]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/FAILED at step "checking Docker" after \d+s: the docker command is not installed/);
    expect(r.stderr).toContain(`log: ${path.join(dir, 'a', 'compose.log')}`);
    expect(r.stderr).toMatch(/fix: install Docker: apt-get install docker.io/);
  }, 60_000);

  it('with an engine that does not answer: says how to start it', async () => {
    const bin = path.join(dir, 'fake-bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'docker'), '#!/bin/sh\necho "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2\nexit 1\n', { mode: 0o755 });
    const r = await kemu(['compose', 'down', `--data-dir=${path.join(dir, 'b')}`], [bin, '/usr/bin', '/bin']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('FAILED at step "checking Docker": the Docker engine does not answer');
    expect(r.stderr).toMatch(/fix: start it \(sudo systemctl start docker/);
  }, 60_000);

  it('refuses bad flags with exit 2', async () => {
    const r = await kemu(['compose', 'up', '--base-images=maybe'], ['/usr/bin', '/bin']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--base-images must be auto, pull or build (got "maybe")');
    const s = await kemu(['compose', 'sideways'], ['/usr/bin', '/bin']);
    expect(s.code).toBe(2);
  }, 60_000);

  it('knows the compose file\'s 17 services, each container named as its service', () => {
    const svc = composeServices();
    expect(svc).toHaveLength(17);
    for (const s of svc) expect(s.container).toBe(s.service);
  });
});

// exec, attach and cp end to end in one `kemu up` lab with one worker: kubectl (output, exit codes, the
// kubelet's and apiserver's errors, `exec -i sh` with piped stdin, `cp` both ways, `run -i --rm`, `run -it --rm` and `debug -it` under a pseudo-terminal), the
// official Python client's stream() and @kubernetes/client-node's Exec. The apiserver tunnels each upgrade
// to the worker's kubelet, which runs the command in the container's emulated shell.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Exec, KubeConfig, type V1Status } from '@kubernetes/client-node';
import { waitFor } from '@kemu/base/testing/processes';
import { hasKubectl, missing, startLab, type Lab, type RunResult } from '../lab/lab.ts';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker') ?? (hasKubectl() ? undefined : 'kubectl not installed');
const PYTHON = '/usr/bin/python3';
const noPython = spawnSync(PYTHON, ['-c', 'import kubernetes'], { encoding: 'utf8' }).status === 0 ? undefined : `${PYTHON} lacks the kubernetes module`;

let lab: Lab | undefined;

/** kubectl with `input` on its stdin. */
function kubectl(input: string | undefined, ...args: string[]): Promise<RunResult> {
  const l = lab as Lab;
  return new Promise((resolve) => {
    const child = spawn('kubectl', [`--kubeconfig=${l.kubeconfig}`, ...args], { env: { ...process.env, HOME: l.dir }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}

/** One step of a terminal session: wait for `wait` on the screen and/or for `file` to exist, then type `send`. */
type PtyStep = { wait?: string; file?: string; send?: string };

const PTY_SCRIPT = String.raw`
import fcntl, json, os, pty, select, struct, sys, termios, time
steps = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', 30, 100, 0, 0))
    os.execvp('kubectl', ['kubectl'] + sys.argv[2:])
buf = b''
def more(deadline):
    global buf
    r, _, _ = select.select([fd], [], [], max(0, deadline - time.time()))
    if not r: return False
    try: d = os.read(fd, 4096)
    except OSError: return False
    buf += d
    return len(d) > 0
def stuck(what):
    print(json.dumps({'out': buf.decode('utf8', 'replace'), 'code': -1, 'stuck': what})); os.kill(pid, 9); sys.exit(0)
for step in steps:
    deadline = time.time() + 30
    while 'wait' in step and step['wait'].encode() not in buf:
        if not more(deadline): stuck(step['wait'])
    deadline = time.time() + 90
    while 'file' in step and not os.path.exists(step['file']):
        if time.time() > deadline: stuck(step['file'])
        more(time.time() + 0.1)
    if 'send' in step: os.write(fd, step['send'].encode())
deadline = time.time() + 30
while more(deadline): pass
_, st = os.waitpid(pid, 0)
print(json.dumps({'out': buf.decode('utf8', 'replace'), 'code': os.waitstatus_to_exitcode(st)}))
`;

function ptyResult(status: number | null, stdout: string, stderr: string): RunResult {
  if (status !== 0) return { code: 1, stdout: '', stderr };
  const j = JSON.parse(stdout) as { out: string; code: number; stuck?: string };
  return { code: j.code, stdout: j.out, stderr: j.stuck ? `stuck waiting for ${JSON.stringify(j.stuck)}` : '' };
}

/**
 * kubectl under a pseudo-terminal (100 columns, 30 rows), as a user types at it: each step waits for `wait`
 * in what the terminal showed, then types `send`. Returns the whole transcript and kubectl's exit status.
 */
function kubectlPty(steps: PtyStep[], ...args: string[]): RunResult {
  const l = lab as Lab;
  const r = spawnSync(PYTHON, ['-c', PTY_SCRIPT, JSON.stringify(steps), `--kubeconfig=${l.kubeconfig}`, ...args], { encoding: 'utf8', timeout: 90_000, env: { ...process.env, HOME: l.dir } });
  return ptyResult(r.status, r.stdout, r.stderr);
}

/** kubectlPty running beside the test, which can meanwhile look at the cluster (and create a step's `file`). */
function kubectlPtyAsync(steps: PtyStep[], ...args: string[]): Promise<RunResult> {
  const l = lab as Lab;
  return new Promise((resolve) => {
    const child = spawn(PYTHON, ['-c', PTY_SCRIPT, JSON.stringify(steps), `--kubeconfig=${l.kubeconfig}`, ...args], { env: { ...process.env, HOME: l.dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(ptyResult(code, stdout, stderr));
    });
  });
}

beforeAll(async () => {
  if (skip) return;
  // One of each: exec, attach and port-forward go through the balancer to whichever replica; the HPA data path needs the
  // controller-manager and metrics-server.
  lab = await startLab({ apiservers: 1, controllerManagers: 1, schedulers: 1, workers: 1, metricsServers: 1 });
  await lab.waitRunning();
  await waitFor('a Ready node', async () => (await lab?.kubectl('get', 'nodes'))?.stdout.includes(' Ready') ?? false, 60_000, 300);
  const r = await kubectl(undefined, 'run', 'box', '--image=busybox', '--', 'sleep', '3600');
  expect(r.code, r.stderr).toBe(0);
  await waitFor('box running', async () => (await lab?.kubectl('get', 'pod', 'box', '-o', 'jsonpath={.status.phase}'))?.stdout === 'Running', 60_000, 300);
}, 180_000);

afterAll(async () => lab?.down(), 60_000);

describe.skipIf(skip)('exec, attach and cp through the apiserver to the kubelet', () => {
  it('kubectl exec prints the output and exits with the command status', async () => {
    expect(await kubectl(undefined, 'exec', 'box', '--', 'echo', 'hi')).toMatchObject({ code: 0, stdout: 'hi\n' });
    const r = await kubectl(undefined, 'exec', 'box', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3');
    expect(r).toMatchObject({ code: 3, stdout: 'out\n' });
    expect(r.stderr).toBe('err\ncommand terminated with exit code 3\n');
  });

  it('refuses as Kubernetes does: an unknown container, a missing program', async () => {
    const c = await kubectl(undefined, 'exec', 'box', '-c', 'nope', '--', 'ls');
    expect([c.code, c.stderr]).toEqual([1, 'Error from server (BadRequest): container nope is not valid for pod box\n']);
    const m = await kubectl(undefined, 'exec', 'box', '--', 'nosuch');
    expect(m.code).toBe(1);
    expect(m.stderr).toMatch(/^error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "nosuch": executable file not found in \$PATH: unknown\n$/);
  });

  it('exec -i sh reads its commands from stdin, and files stay between execs', async () => {
    const r = await kubectl('echo one > /tmp/f\nmkdir /tmp/d\nls /tmp\nnope\necho status=$?\nhostname\n', 'exec', '-i', 'box', '--', 'sh');
    expect(r.stdout).toBe('d\nf\nstatus=127\nbox\n');
    expect(r.stderr).toBe('sh: nope: not found\n');
    expect(await kubectl(undefined, 'exec', 'box', '--', 'cat', '/tmp/f')).toMatchObject({ code: 0, stdout: 'one\n' });
  });

  it('kubectl cp copies into the container and back (tar over exec)', async () => {
    const l = lab as Lab;
    const src = path.join(l.dir, 'cp-src.txt');
    fs.writeFileSync(src, 'hello from the host\n');
    expect(await kubectl(undefined, 'cp', src, 'box:/tmp/copied.txt')).toMatchObject({ code: 0 });
    expect((await kubectl(undefined, 'exec', 'box', '--', 'cat', '/tmp/copied.txt')).stdout).toBe('hello from the host\n');
    const back = path.join(l.dir, 'cp-back.txt');
    expect(await kubectl(undefined, 'cp', 'box:/tmp/copied.txt', back)).toMatchObject({ code: 0 });
    expect(fs.readFileSync(back, 'utf8')).toBe('hello from the host\n');
  });

  it('kubectl exec sees mounted ConfigMap, Secret, downward API and token files, and a ConfigMap edit later', async () => {
    expect((await kubectl(undefined, 'create', 'configmap', 'cfg', '--from-literal=key=value-1')).code).toBe(0);
    expect((await kubectl(undefined, 'create', 'secret', 'generic', 'sec', '--from-literal=password=s3cret')).code).toBe(0);
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'vols', labels: { app: 'vols' } },
      spec: {
        containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'], volumeMounts: [
          { name: 'cfg', mountPath: '/etc/config' }, { name: 'sec', mountPath: '/etc/secret', readOnly: true },
          { name: 'info', mountPath: '/etc/podinfo' }, { name: 'cfg', mountPath: '/app/key.txt', subPath: 'key' },
        ] }],
        volumes: [
          { name: 'cfg', configMap: { name: 'cfg' } },
          { name: 'sec', secret: { secretName: 'sec' } },
          { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        ],
      },
    };
    expect((await kubectl(JSON.stringify(pod), 'apply', '-f', '-')).code).toBe(0);
    await waitFor('vols running', async () => (await lab?.kubectl('get', 'pod', 'vols', '-o', 'jsonpath={.status.phase}'))?.stdout === 'Running', 60_000, 300);
    expect(await kubectl(undefined, 'exec', 'vols', '--', 'cat', '/etc/config/key')).toMatchObject({ code: 0, stdout: 'value-1' });
    const r = await kubectl('cat /etc/secret/password; echo\ncat /etc/podinfo/labels; echo\ncat /var/run/secrets/kubernetes.io/serviceaccount/namespace; echo\nls /etc/config\nls -a /etc/config\n', 'exec', '-i', 'vols', '--', 'sh');
    // The atomic writer's layout: a timestamped directory, ..data, and the key.
    expect(r.stdout).toMatch(/^s3cret\napp="vols"\ndefault\nkey\n\.\n\.\.\n\.\.\d{4}(_\d\d){5}\.\d+\n\.\.data\nkey\n$/);
    const long = await kubectl(undefined, 'exec', 'vols', '--', 'ls', '-la', '/etc/config');
    expect(long.stdout).toMatch(/^total \d+\ndrwxr-xr-x +\d+ root +root +4096 \w{3} [ \d]\d \d\d:\d\d \.\n[^]*\nlrwxrwxrwx    1 root     root +\d+ \w{3} [ \d]\d \d\d:\d\d \.\.data -> \.\.\d{4}(_\d\d){5}\.\d+\nlrwxrwxrwx    1 root     root            10 \w{3} [ \d]\d \d\d:\d\d key -> \.\.data\/key\n$/);
    const token = await kubectl(undefined, 'exec', 'vols', '--', 'cat', '/var/run/secrets/kubernetes.io/serviceaccount/token');
    expect(token.stdout).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    expect((await kubectl(undefined, 'patch', 'configmap', 'cfg', '-p', '{"data":{"key":"value-2"}}')).code).toBe(0);
    await waitFor('the edit is seen', async () => (await kubectl(undefined, 'exec', 'vols', '--', 'cat', '/etc/config/key')).stdout === 'value-2', 30_000, 500);
    // A subPath mount is never updated.
    expect((await kubectl(undefined, 'exec', 'vols', '--', 'cat', '/app/key.txt')).stdout).toBe('value-1');
  });

  it('kubectl cp round-trips a binary file exactly', async () => {
    const l = lab as Lab;
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) & 255));
    const src = path.join(l.dir, 'blob.bin');
    fs.writeFileSync(src, bytes);
    expect(await kubectl(undefined, 'cp', src, 'box:/tmp/blob.bin')).toMatchObject({ code: 0 });
    const back = path.join(l.dir, 'blob-back.bin');
    expect(await kubectl(undefined, 'cp', 'box:/tmp/blob.bin', back)).toMatchObject({ code: 0 });
    expect(fs.readFileSync(back).equals(bytes)).toBe(true);
  });

  it('kill 1 in a server image ends its main process and the container restarts; sleep as PID 1 ignores it', async () => {
    expect((await kubectl(undefined, 'run', 'web', '--image=nginx')).code).toBe(0);
    await waitFor('web running', async () => (await lab?.kubectl('get', 'pod', 'web', '-o', 'jsonpath={.status.phase}'))?.stdout === 'Running', 60_000, 300);
    expect(await kubectl(undefined, 'exec', 'web', '--', 'kill', '1')).toMatchObject({ code: 0 });
    await waitFor('web restarted', async () => (await lab?.kubectl('get', 'pod', 'web', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}'))?.stdout === '1', 30_000, 300);
    expect(await kubectl(undefined, 'exec', 'box', '--', 'kill', '1')).toMatchObject({ code: 0 });
    const nope = await kubectl(undefined, 'exec', 'box', '--', 'kill', '999');
    expect([nope.code, nope.stderr]).toEqual([1, "sh: can't kill pid 999: No such process\ncommand terminated with exit code 1\n"]);
    await kubectl(undefined, 'delete', 'pod', 'web', '--wait=false');
  });

  it('kubectl run -i --rm: the shell reads piped stdin, its exit ends the pod, and --rm deletes it', async () => {
    const r = await kubectl('echo inside $(hostname)\nexit 4\n', 'run', 't', '-i', '--rm', '--image=busybox', '--restart=Never', '--', 'sh');
    expect(r.stdout).toContain('inside t\n');
    expect(r.stdout).toContain('pod "t" deleted');
    expect(r.code).toBe(4);
    expect((await kubectl(undefined, 'get', 'pod', 't')).stderr).toContain('pods "t" not found');
  });

  it('kubectl debug -i --target: a debug container sharing the target\'s processes reads piped stdin, then reports its exit', async () => {
    const r = await kubectl('ps\necho in $(hostname)\nexit 5\n', 'debug', '-i', 'box', '--image=busybox:1.28', '--target=box', '--', 'sh');
    expect(r.stderr).not.toContain('error');
    expect(r.stdout).toMatch(/^PID   USER     TIME  COMMAND\n    1 root      0:00 sleep 3600\n +\d+ root      0:00 sh\n +\d+ root      0:00 ps\nin box\n/m);
    const name = /debugger-\w+/.exec(r.stdout + r.stderr)?.[0] ?? '';
    expect(name).not.toBe('');
    await waitFor('the debug container terminated', async () => {
      const j = await lab?.kubectl('get', 'pod', 'box', '-o', `jsonpath={.status.ephemeralContainerStatuses[?(@.name=="${name}")].state.terminated.exitCode}`);
      return j?.stdout === '5';
    }, 30_000, 300);
    // The pod's own container runs on.
    expect((await kubectl(undefined, 'get', 'pod', 'box', '-o', 'jsonpath={.status.phase} {.status.containerStatuses[0].restartCount}')).stdout).toBe('Running 0');
  });

  it('kubectl run -it --rm under a terminal: the prompt, typed commands echoed with their output, exit deletes the pod', async () => {
    const r = kubectlPty(
      [
        { wait: "If you don't see a command prompt, try pressing enter.", send: '\r' },
        { wait: '/ # ', send: 'echo hi $(hostname)\r' },
        { wait: 'hi tty\r\n/ # ', send: 'stty size\r' },
        { wait: '30 100\r\n/ # ', send: 'exit 3\r' },
      ],
      'run', 'tty', '-it', '--rm', '--image=busybox', '--restart=Never', '--', 'sh',
    );
    expect(r.stderr).toBe('');
    // The terminal echoes what was typed (the shell's line discipline) and shows output with CR-LF.
    expect(r.stdout).toContain('/ # echo hi $(hostname)\r\nhi tty\r\n/ # stty size\r\n30 100\r\n/ # exit 3\r\n');
    expect(r.stdout).toMatch(/pod "tty" deleted/);
    expect(r.code).toBe(3);
    expect((await kubectl(undefined, 'get', 'pod', 'tty')).stderr).toContain('pods "tty" not found');
  });

  it('kubectl debug -it under a terminal: ps in the ephemeral container shows the target\'s processes', async () => {
    const r = kubectlPty(
      [
        { wait: "If you don't see a command prompt, try pressing enter.", send: '\r' },
        { wait: '/ # ', send: 'ps\r' },
        { wait: ' ps\r\n/ # ', send: 'exit\r' },
      ],
      'debug', '-it', 'box', '--image=busybox:1.28', '--target=box', '--', 'sh',
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/\/ # ps\r\nPID   USER     TIME  COMMAND\r\n    1 root      0:00 sleep 3600\r\n +\d+ root      0:00 sh\r\n +\d+ root      0:00 ps\r\n\/ # exit\r\n/);
    expect(r.code).toBe(0);
  });

  it('kubectl debug --copy-to: a copy of the pod whose container runs the given shell', async () => {
    const r = await kubectl('echo copy $(hostname)\nexit 0\n', 'debug', 'box', '-i', '--copy-to=box-copy', '--container=box', '--', 'sh');
    expect(r.stdout).toContain('copy box-copy\n');
    const copy = await kubectl(undefined, 'get', 'pod', 'box-copy', '-o', 'jsonpath={.spec.containers[0].command} {.spec.containers[0].stdin}');
    expect(copy.stdout).toBe('["sh"] true');
    await kubectl(undefined, 'delete', 'pod', 'box-copy', '--wait=false');
  });

  it("the kubelet's /configz through the node proxy: its KubeletConfiguration under kubeletconfig", async () => {
    const node = (await kubectl(undefined, 'get', 'pod', 'box', '-o', 'jsonpath={.spec.nodeName}')).stdout;
    const r = await kubectl(undefined, 'get', '--raw', `/api/v1/nodes/${node}/proxy/configz`);
    expect(r.code, r.stderr).toBe(0);
    const cfg = (JSON.parse(r.stdout) as { kubeletconfig: Record<string, unknown> }).kubeletconfig;
    // The lab's kubelets run secured (kubeadm's settings): webhook authentication and authorization.
    expect(cfg).toMatchObject({ enableServer: true, maxPods: 110, authorization: { mode: 'Webhook' }, authentication: { anonymous: { enabled: false }, webhook: { enabled: true } } });
  });

  it('the Python client stream() gets the output and the exit status', async (ctx) => {
    if (noPython) return ctx.skip(noPython);
    const l = lab as Lab;
    const script = [
      'import json, sys',
      'from kubernetes import client, config',
      'from kubernetes.stream import stream',
      'config.load_kube_config(sys.argv[1])',
      'api = client.CoreV1Api()',
      "hi = stream(api.connect_get_namespaced_pod_exec, 'box', 'default', command=['echo', 'py-hi'], stderr=True, stdin=False, stdout=True, tty=False)",
      "ws = stream(api.connect_get_namespaced_pod_exec, 'box', 'default', command=['sh', '-c', 'echo out; echo err >&2; exit 3'], stderr=True, stdin=False, stdout=True, tty=False, _preload_content=False)",
      'ws.run_forever(timeout=20)',
      "print(json.dumps({'hi': hi, 'stdout': ws.read_stdout(), 'stderr': ws.read_stderr(), 'code': ws.returncode}))",
    ].join('\n');
    const r = spawnSync(PYTHON, ['-c', script, l.kubeconfig], { encoding: 'utf8', timeout: 40_000, env: { ...process.env, HOME: l.dir } });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ hi: 'py-hi\n', stdout: 'out\n', stderr: 'err\n', code: 3 });
  });

  it("client-node's Exec gets the output and the Status", async () => {
    const kc = new KubeConfig();
    kc.loadFromFile((lab as Lab).kubeconfig);
    let out = '';
    const stdout = new Writable({ write: (c: Buffer, _e, cb) => ((out += c.toString()), cb()) });
    const stderr = new Writable({ write: (_c, _e, cb) => cb() });
    const status = await new Promise<V1Status>((resolve, reject) => {
      new Exec(kc).exec('default', 'box', 'box', ['sh', '-c', 'echo node-out; exit 2'], stdout, stderr, null, false, resolve).catch(reject);
    });
    expect(out).toBe('node-out\n');
    expect(status).toMatchObject({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '2' }] } });
  });

  it("the HPA walkthrough's data path: a load generator run -it raises php-apache's CPU in kubectl top; Ctrl-C ends it, --rm deletes it, the CPU falls back", async () => {
    const l = lab as Lab;
    // kubernetes.io's php-apache.yaml, with a 2 s usage window (10 s by default) to keep the test short.
    const manifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: php-apache
spec:
  selector:
    matchLabels:
      run: php-apache
  template:
    metadata:
      labels:
        run: php-apache
      annotations:
        kemu.dev/cpu-usage-window: 2s
    spec:
      containers:
      - name: php-apache
        image: registry.k8s.io/hpa-example
        ports:
        - containerPort: 80
        resources:
          limits:
            cpu: 500m
          requests:
            cpu: 200m
---
apiVersion: v1
kind: Service
metadata:
  name: php-apache
  labels:
    run: php-apache
spec:
  ports:
  - port: 80
  selector:
    run: php-apache
`;
    const applied = await kubectl(manifest, 'apply', '-f', '-');
    expect(applied.stdout, applied.stderr).toBe('deployment.apps/php-apache created\nservice/php-apache created\n');
    expect((await kubectl(undefined, 'rollout', 'status', 'deployment/php-apache', '--timeout=60s')).code).toBe(0);
    // The pod's CPU as kubectl top prints it, in millicores (metrics-server scrapes every 3 s here).
    const cpu = async () => {
      const m = /^php-apache-\S+\s+(\d+)m\s/m.exec((await kubectl(undefined, 'top', 'pod', '-l', 'run=php-apache', '--no-headers')).stdout);
      return m ? Number(m[1]) : undefined;
    };
    const stop = path.join(l.dir, 'stop-load-generator');
    const session = kubectlPtyAsync(
      [{ wait: 'OK!OK!OK!' }, { file: stop, send: '\x03' }],
      'run', '-i', '--tty', 'load-generator', '--rm', '--image=busybox:1.28', '--restart=Never', '--', '/bin/sh', '-c', 'while sleep 0.01; do wget -q -O- http://php-apache; done',
    );
    // Base: 10% of the 200m request. Under load: 100 ms of CPU per request, up to the 500m limit.
    let busy: number | undefined;
    await waitFor('php-apache busy in kubectl top', async () => ((busy = await cpu()) ?? 0) >= 100, 60_000, 1000);
    expect(busy).toBeLessThanOrEqual(500);
    fs.writeFileSync(stop, '');
    const r = await session;
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('OK!OK!OK!');
    expect(r.stdout).toMatch(/pod "load-generator" deleted/);
    // The load is over: metrics-server's rate over two scrapes both taken once the kubelet's 10 s usage window has
    // passed shows the base (in nanocores: the counter's increase over the window, truncated).
    const after = Date.now() + 11_000;
    let fresh: { timestamp: string; window: string; containers: { usage: { cpu: string } }[] } | undefined;
    await waitFor('a PodMetrics whose window starts after the load', async () => {
      const list = JSON.parse((await kubectl(undefined, 'get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=run%3Dphp-apache')).stdout || '{}') as { items?: (typeof fresh)[] };
      fresh = list.items?.find((m) => m !== undefined && Date.parse(m.timestamp) - parseFloat(m.window) * 1000 >= after);
      return fresh !== undefined;
    }, 60_000, 1000);
    const q = fresh?.containers[0]?.usage.cpu ?? '';
    const millicores = q.endsWith('n') ? parseInt(q, 10) / 1e6 : q.endsWith('u') ? parseInt(q, 10) / 1e3 : q.endsWith('m') ? parseInt(q, 10) : parseFloat(q) * 1000;
    expect(Math.round(millicores)).toBe(20);
    await waitFor('php-apache back at its base in kubectl top', async () => (await cpu()) === 20, 60_000, 1000);
  }, 150_000);
});

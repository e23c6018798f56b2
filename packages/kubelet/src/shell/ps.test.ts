import { describe, expect, it } from 'vitest';
import { ProcessTable, imageProcesses, ps } from './ps.ts';

describe('ps', () => {
  it('lists the table in busybox columns, itself included while it runs', () => {
    const t = new ProcessTable();
    t.spawn('sleep 3600');
    const sh = t.spawn('sh');
    expect(ps(t, ['ps']).out).toBe('PID   USER     TIME  COMMAND\n    1 root      0:00 sleep 3600\n    2 root      0:00 sh\n    3 root      0:00 ps\n');
    t.exit(sh);
    expect(ps(t, ['ps', 'aux']).out).toBe('PID   USER     TIME  COMMAND\n    1 root      0:00 sleep 3600\n    4 root      0:00 ps aux\n');
  });

  it("names an image's own processes when the pod gives no command", () => {
    expect(imageProcesses('nginx:1.27')).toEqual(['nginx: master process nginx -g daemon off;', 'nginx: worker process']);
    expect(imageProcesses('docker.io/library/busybox:1.28')).toEqual(['sh']);
  });
});

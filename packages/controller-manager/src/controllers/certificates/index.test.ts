import { describe, expect, it } from 'vitest';
import { selectControllers } from '../../registry.ts';

describe('the certificate controllers in --controllers', () => {
  it("are on by default under Kubernetes' names and aliases, all as the certificate-controller ServiceAccount", () => {
    const mine = selectControllers(['*']).filter((d) => d.name.startsWith('certificatesigningrequest-'));
    expect(mine.map((d) => [d.name, d.aliases, d.serviceAccountName])).toEqual([
      ['certificatesigningrequest-signing-controller', ['csrsigning'], 'certificate-controller'],
      ['certificatesigningrequest-approving-controller', ['csrapproving'], 'certificate-controller'],
      ['certificatesigningrequest-cleaner-controller', ['csrcleaner'], 'certificate-controller'],
    ]);
    expect(selectControllers(['*', '-csrapproving']).map((d) => d.name)).not.toContain('certificatesigningrequest-approving-controller');
    expect(selectControllers(['csrsigning']).map((d) => d.name)).toEqual(['certificatesigningrequest-signing-controller']);
  });
});

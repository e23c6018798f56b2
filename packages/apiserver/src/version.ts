// /version: kemu emulates the Kubernetes v1.31 API (so kubectl's dispatcher picks kubectl 1.31, which
// speaks JSON only); gitVersion stays parseable as semver.
export const VERSION_INFO = {
  major: '1',
  minor: '31',
  gitVersion: 'v1.31.0-kemu.1',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-12-01T00:00:00Z',
  goVersion: 'go1.22.0',
  compiler: 'gc',
  platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
} as const;

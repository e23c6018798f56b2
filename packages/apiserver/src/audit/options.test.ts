import { describe, expect, it } from 'vitest';
import { legacyLine, newEvent } from './event.ts';
import { validateAuditFlags, type AuditFlagValues } from './options.ts';
import { requestAttributes } from './request-info.ts';

const flags = (o: Partial<AuditFlagValues>): AuditFlagValues => ({
  'audit-policy-file': '', 'audit-log-path': '/tmp/a.log', 'audit-log-maxage': 0, 'audit-log-maxbackup': 0, 'audit-log-maxsize': 0,
  'audit-log-format': 'json', 'audit-log-compress': false, 'audit-log-mode': 'blocking', ...o,
});

describe('audit flags', () => {
  it('accepts the defaults and the legacy format, batch and blocking-strict modes', () => {
    expect(validateAuditFlags(flags({}))).toEqual([]);
    expect(validateAuditFlags(flags({ 'audit-log-format': 'legacy', 'audit-log-mode': 'batch' }))).toEqual([]);
    expect(validateAuditFlags(flags({ 'audit-log-mode': 'blocking-strict' }))).toEqual([]);
  });
  it("refuses what Kubernetes' AuditLogOptions.Validate refuses, with its words", () => {
    expect(validateAuditFlags(flags({ 'audit-log-maxage': -1, 'audit-log-format': 'xml', 'audit-log-mode': 'later' }))).toEqual([
      'invalid audit log mode later, allowed modes are "batch,blocking,blocking-strict"',
      'invalid audit log format xml, allowed formats are "legacy,json"',
      "--audit-log-maxage -1 can't be a negative number",
    ]);
  });
  it('checks nothing when no log path is given (the log backend is off)', () => {
    expect(validateAuditFlags(flags({ 'audit-log-path': '', 'audit-log-maxsize': -5 }))).toEqual([]);
  });
});

describe('legacy format', () => {
  it("is Kubernetes' one-line AUDIT text", () => {
    const ev = newEvent({
      level: 'Metadata', auditID: 'id-1', requestURI: '/api/v1/namespaces/d/pods', sourceIPs: ['10.0.0.1'], userAgent: 'kubectl', receivedMicros: Date.UTC(2026, 0, 2, 3, 4, 5) * 1000 + 6,
      attrs: requestAttributes('POST', '/api/v1/namespaces/d/pods', { username: 'kubernetes-admin', groups: ['system:masters'] }),
    });
    expect(legacyLine(ev)).toBe(
      '2026-01-02T03:04:05.000006Z AUDIT: id="id-1" stage="RequestReceived" ip="10.0.0.1" method="create" user="kubernetes-admin" groups="\\"system:masters\\"" as="<self>" asgroups="<lookup>" user-agent="kubectl" namespace="d" uri="/api/v1/namespaces/d/pods" response="<deferred>"',
    );
    expect(legacyLine({ ...ev, requestReceivedTimestamp: '2026-01-02T03:04:05.120000Z', stage: 'ResponseComplete', responseStatus: { metadata: {}, code: 201 } })).toMatch(/^2026-01-02T03:04:05\.12Z AUDIT: .* response="201"$/);
    expect(legacyLine({ ...ev, requestReceivedTimestamp: '2026-01-02T03:04:05.000000Z' })).toMatch(/^2026-01-02T03:04:05Z AUDIT/);
  });
});

// The words Go's net/http client uses for a failed request, which kube-apiserver returns as the message of a
// 500 Status when a kubelet cannot be reached: `Get "https://10.0.0.1:10250/containerLogs/…": dial tcp
// 10.0.0.1:10250: connect: connection refused`. Node's error codes mapped onto Go's errors.

/** The message of Go's *url.Error for a GET of `url` that failed with `e`, dialling `hostPort`. */
export function goRequestError(url: string, hostPort: string, host: string, e: unknown): string {
  return `Get ${JSON.stringify(url)}: ${goCause(hostPort, host, e)}`;
}

function goCause(hostPort: string, host: string, e: unknown): string {
  const err = e as NodeJS.ErrnoException & { reason?: string };
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${hostPort}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${hostPort}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${hostPort}: connect: network is unreachable`;
    case 'EADDRNOTAVAIL':
      return `dial tcp ${hostPort}: connect: cannot assign requested address`;
    case 'ETIMEDOUT':
    case 'KEMU_DIAL_TIMEOUT':
      return `dial tcp ${hostPort}: i/o timeout`;
    case 'KEMU_TLS_HANDSHAKE_TIMEOUT':
      return 'net/http: TLS handshake timeout';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${host}: no such host`;
    case 'ECONNRESET':
      return `read tcp ${hostPort}: read: connection reset by peer`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: ${hostnameError(host, (err as { cert?: { subjectaltname?: string } }).cert?.subjectaltname ?? '')}`;
    default:
      // A connection closed before a response: Go's transport reports EOF.
      if (err.message === 'socket hang up') return 'EOF';
      return err.message ?? String(e);
  }
}

/** x509.HostnameError's text: the certificate's IP SANs for an IP host, else its DNS SANs. */
function hostnameError(host: string, subjectAltName: string): string {
  const sans = subjectAltName.split(', ').filter((s) => s !== '');
  const isIP = /^[\d.]+$/.test(host) || host.includes(':');
  const valid = sans.filter((s) => s.startsWith(isIP ? 'IP Address:' : 'DNS:')).map((s) => s.slice(s.indexOf(':') + 1));
  if (valid.length === 0) return isIP ? `cannot validate certificate for ${host} because it doesn't contain any IP SANs` : `certificate is not valid for any names, but wanted to match ${host}`;
  return `certificate is valid for ${valid.join(', ')}, not ${host}`;
}

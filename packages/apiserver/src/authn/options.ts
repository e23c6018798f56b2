// kube-apiserver's authentication flags (names, defaults and usage as Kubernetes 1.32) and the authenticator they
// build, in Kubernetes' order: request header, client certificate, then bearer tokens (token file, legacy and
// bound ServiceAccount tokens, bootstrap tokens; successes cached 10 s) from the Authorization header or the
// WebSocket protocol; then system:authenticated; then anonymous. Files that cannot be read or parsed are
// start-up errors (thrown).
import { readFileSync } from 'node:fs';
import { parseCertificates, type X509Certificate } from '@kemu/pki';
import { audienceAgnostic } from './audiences.ts';
import { bearerTokenAuthenticator, tokenUnion, webSocketProtocolAuthenticator } from './bearer-token.ts';
import { bootstrapTokenAuthenticator } from './bootstrap-token.ts';
import { goFileError } from '@kemu/base';
import { requestHeaderAuthenticator } from './request-header.ts';
import { readPublicKeys, readSigningKey, type SigningKey, type VerifyKey } from '@kemu/pki';
import { boundServiceAccountAuthenticator, legacyServiceAccountAuthenticator, type ServiceAccountLookups } from './service-account.ts';
import { cachedTokenAuthenticator } from './token-cache.ts';
import { loadTokenFile, tokenFileAuthenticator } from './token-file.ts';
import type { Authenticator, AuthnResponse, TokenAuthenticator } from './types.ts';
import { unionAuthenticator } from './union.ts';
import { x509Authenticator } from './x509.ts';

/** --client-ca-file, kept apart: the TLS listener reads it too, and whoever owns serving may already declare it. */
export const CLIENT_CA_FLAG = {
  'client-ca-file': { type: 'string', default: '', usage: 'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.' },
} as const;

export const AUTHN_FLAGS = {
  'anonymous-auth': { type: 'bool', default: true, usage: 'Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated.' },
  'api-audiences': { type: 'stringArray', default: [], usage: 'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If the --service-account-issuer flag is configured and this flag is not, this field defaults to a single element list containing the issuer URL.' },
  'enable-bootstrap-token-auth': { type: 'bool', default: false, usage: "Enable to allow secrets of type 'bootstrap.kubernetes.io/token' in the 'kube-system' namespace to be used for TLS bootstrapping authentication." },
  'token-auth-file': { type: 'string', default: '', usage: 'If set, the file that will be used to secure the secure port of the API server via token authentication.' },
  'service-account-key-file': { type: 'stringArray', default: [], usage: 'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. If unspecified, --tls-private-key-file is used. Must be specified when --service-account-signing-key-file is provided' },
  'service-account-issuer': { type: 'stringArray', default: [], usage: 'Identifier of the service account token issuer. The issuer will assert this identifier in "iss" claim of issued tokens. This value is a string or URI. When this flag is specified multiple times, the first is used to generate tokens and all are used to determine which issuers are accepted.' },
  'service-account-signing-key-file': { type: 'string', default: '', usage: 'Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key.' },
  'service-account-lookup': { type: 'bool', default: true, usage: 'If true, validate ServiceAccount tokens exist in etcd as part of authentication.' },
  'service-account-max-token-expiration': { type: 'duration', default: 0, usage: 'The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value.' },
  'service-account-extend-token-expiration': { type: 'bool', default: true, usage: 'Turns on projected service account expiration extension during token generation, which helps safe transition from legacy token to bound service account token feature. If this flag is enabled, admission injected tokens would be extended up to 1 year to prevent unexpected failure during transition, ignoring value of service-account-max-token-expiration.' },
  'requestheader-client-ca-file': { type: 'string', default: '', usage: 'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.' },
  'requestheader-allowed-names': { type: 'stringArray', default: [], usage: 'List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.' },
  'requestheader-username-headers': { type: 'stringArray', default: [], usage: 'List of request headers to inspect for usernames. X-Remote-User is common.' },
  'requestheader-group-headers': { type: 'stringArray', default: [], usage: 'List of request headers to inspect for groups. X-Remote-Group is suggested.' },
  'requestheader-extra-headers-prefix': { type: 'stringArray', default: [], usage: 'List of request header prefixes to inspect. X-Remote-Extra- is suggested.' },
} as const;

export interface AuthnFlagValues {
  'anonymous-auth': boolean;
  'api-audiences': readonly string[];
  'enable-bootstrap-token-auth': boolean;
  'token-auth-file': string;
  'service-account-key-file': readonly string[];
  'service-account-issuer': readonly string[];
  'service-account-signing-key-file': string;
  'service-account-lookup': boolean;
  'service-account-max-token-expiration': number;
  'service-account-extend-token-expiration': boolean;
  'requestheader-client-ca-file': string;
  'requestheader-allowed-names': readonly string[];
  'requestheader-username-headers': readonly string[];
  'requestheader-group-headers': readonly string[];
  'requestheader-extra-headers-prefix': readonly string[];
  /** Read when --service-account-key-file is not given, as Kubernetes does. */
  'tls-private-key-file'?: string;
}

/**
 * Flag errors (exit 2 like other flag errors), worded as Kubernetes' BuiltInAuthenticationOptions.Validate and
 * the max-expiration check of its option completion. `requireServiceAccounts` adds kube-apiserver's two
 * required flags (--service-account-issuer, --service-account-key-file); kemu's binary leaves it to its caller
 * (without them it simply has no ServiceAccount tokens).
 */
export function validateAuthnFlags(f: AuthnFlagValues, o: { requireServiceAccounts?: boolean } = {}): string[] {
  const errs: string[] = [];
  const seen = new Set<string>();
  for (const iss of f['service-account-issuer']) {
    if (iss.includes(':') && !URL.canParse(iss)) {
      errs.push(`service-account-issuer ${JSON.stringify(iss)} contained a ':' but was not a valid URL`);
      continue;
    }
    if (iss === '') {
      errs.push('service-account-issuer should not be an empty string');
      continue;
    }
    if (seen.has(iss)) {
      errs.push(`service-account-issuer ${JSON.stringify(iss)} is already specified`);
      continue;
    }
    seen.add(iss);
  }
  if (o.requireServiceAccounts) {
    if (f['service-account-issuer'].length === 0) errs.push('service-account-issuer is a required flag');
    if (f['service-account-key-file'].length === 0) errs.push('service-account-key-file is a required flag');
  }
  const max = f['service-account-max-token-expiration'];
  if (f['service-account-signing-key-file'] !== '' && max !== 0 && (max < 3_600_000 || max > 2 ** 32 * 1000)) {
    errs.push('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  }
  return errs;
}

/** The certificates of a CA bundle file; throws with the file named when it cannot be read or holds none. */
export function loadCaBundle(path: string): X509Certificate[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`unable to load client CA provider: ${goFileError('open', path, e)}`);
  }
  try {
    const certs = parseCertificates(text, path);
    if (certs.length === 0) throw new Error('data does not contain any valid RSA or ECDSA certificates');
    return certs;
  } catch (e) {
    throw new Error(`unable to load client CA provider: error loading certs from ${path}: ${(e as Error).message}`);
  }
}

/** What TokenRequest needs to mint tokens (absent when no signing key is configured). */
export interface TokenIssuerConfig {
  issuer: string;
  signer: SigningKey;
  apiAudiences: readonly string[];
  /** 0: no cap. */
  maxExpirationSeconds: number;
  extendExpiration: boolean;
}

export interface BuiltAuthentication {
  /** The request authenticator (throws AuthenticationError or answers undefined: both mean 401). */
  authenticator: Authenticator;
  /** For TokenReview: the same chain, asked with nothing but "Authorization: Bearer <token>". */
  tokenAuthenticator: TokenAuthenticator;
  apiAudiences: readonly string[];
  tokenIssuer?: TokenIssuerConfig;
}

export interface AuthnLogger {
  warn?(message: string): void;
}

export interface BuildOptions {
  log?: AuthnLogger;
  /** Kubernetes' TokenSuccessCacheTTL (10 s, not a flag); tests shorten it. */
  tokenSuccessCacheTtlMs?: number;
}

export function buildAuthenticator(f: AuthnFlagValues, lookups: ServiceAccountLookups, clientCA?: readonly X509Certificate[], o: BuildOptions = {}): BuiltAuthentication {
  const log = o.log ?? {};
  const issuers = [...f['service-account-issuer']];
  const apiAudiences = f['api-audiences'].length ? [...f['api-audiences']] : issuers;
  const authenticators: Authenticator[] = [];

  if (f['requestheader-client-ca-file'] !== '') {
    authenticators.push(
      requestHeaderAuthenticator({
        roots: loadCaBundle(f['requestheader-client-ca-file']),
        allowedNames: f['requestheader-allowed-names'],
        usernameHeaders: f['requestheader-username-headers'],
        groupHeaders: f['requestheader-group-headers'],
        extraHeaderPrefixes: f['requestheader-extra-headers-prefix'],
      }),
    );
  }
  if (clientCA && clientCA.length > 0) authenticators.push(x509Authenticator(clientCA));

  const tokens: TokenAuthenticator[] = [];
  if (f['token-auth-file'] !== '') tokens.push(audienceAgnostic(apiAudiences, tokenFileAuthenticator(loadTokenFile(f['token-auth-file'], log))));

  let signer: SigningKey | undefined;
  if (f['service-account-signing-key-file'] !== '') signer = readSigningKey(f['service-account-signing-key-file']);
  let keyFiles = [...f['service-account-key-file']];
  if (keyFiles.length === 0 && f['tls-private-key-file']) keyFiles = [f['tls-private-key-file']];
  const keys: VerifyKey[] = keyFiles.flatMap((file) => {
    try {
      return readPublicKeys(file);
    } catch (e) {
      throw new Error(`failed to parse key file ${JSON.stringify(file)}: ${(e as Error).message}`);
    }
  });
  if (keys.length > 0) {
    tokens.push(legacyServiceAccountAuthenticator({ keys, apiAudiences, lookups, lookup: f['service-account-lookup'] }));
    if (issuers.length > 0) tokens.push(boundServiceAccountAuthenticator(issuers, { keys, apiAudiences, lookups }));
  }
  if (f['enable-bootstrap-token-auth']) tokens.push(audienceAgnostic(apiAudiences, bootstrapTokenAuthenticator(lookups)));

  if (tokens.length > 0) {
    const union = cachedTokenAuthenticator(tokenUnion(tokens), o.tokenSuccessCacheTtlMs);
    authenticators.push(bearerTokenAuthenticator(union), webSocketProtocolAuthenticator(union));
  }
  const authenticator = unionAuthenticator(authenticators, { anonymous: f['anonymous-auth'] });
  const nonAnonymous = unionAuthenticator(authenticators, { anonymous: false });
  const tokenAuthenticator: TokenAuthenticator = {
    name: 'token-review',
    async authenticateToken(token, audiences): Promise<AuthnResponse | undefined> {
      // As TokenReview: the requested audiences, else the API's own (when it has any).
      const auds = audiences && audiences.length ? audiences : apiAudiences;
      return nonAnonymous.authenticate({ headers: { authorization: `Bearer ${token}` }, peerCertificates: [], ...(auds.length ? { audiences: auds } : {}) });
    },
  };
  const tokenIssuer: TokenIssuerConfig | undefined =
    signer && issuers[0] !== undefined
      ? { issuer: issuers[0], signer, apiAudiences, maxExpirationSeconds: Math.floor(f['service-account-max-token-expiration'] / 1000), extendExpiration: f['service-account-extend-token-expiration'] }
      : undefined;
  return { authenticator, tokenAuthenticator, apiAudiences, ...(tokenIssuer ? { tokenIssuer } : {}) };
}

// --token-auth-file: static bearer tokens from a CSV file (token,user,uid[,"group1,group2"]), read once at start
// as Kubernetes' tokenfile.NewCSV: Go's encoding/csv rules (quoted fields, "" inside quotes, any number of
// columns), at least 3 columns per record, empty tokens skipped, a later duplicate wins.
import { readFileSync } from 'node:fs';
import { goFileError } from '@kemu/base';
import type { TokenAuthenticator, AuthnResponse } from './types.ts';
import type { UserInfo } from './user.ts';

export class TokenFileError extends Error {}

/** Splits CSV text into records as Go's csv.Reader does (LazyQuotes off, blank lines skipped). */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  const lines = text.split('\n');
  let lineNo = 0;
  let i = 0;
  while (i < lines.length) {
    let line = (lines[i] ?? '').replace(/\r$/, '');
    lineNo = i + 1;
    i++;
    if (line === '') continue;
    const fields: string[] = [];
    let pos = 0;
    for (;;) {
      if (line[pos] === '"') {
        // Quoted field: may span lines; "" is a quote.
        let value = '';
        let p = pos + 1;
        for (;;) {
          const q = line.indexOf('"', p);
          if (q < 0) {
            if (i >= lines.length) throw new TokenFileError(`record on line ${lineNo}; parse error on line ${i + 1}, column 0: extraneous or missing " in quoted-field`);
            value += line.slice(p) + '\n';
            line = (lines[i] ?? '').replace(/\r$/, '');
            i++;
            p = 0;
            continue;
          }
          value += line.slice(p, q);
          if (line[q + 1] === '"') {
            value += '"';
            p = q + 2;
            continue;
          }
          p = q + 1;
          break;
        }
        fields.push(value);
        if (p >= line.length) break;
        if (line[p] !== ',') throw new TokenFileError(`parse error on line ${i}, column ${p + 1}: extraneous or missing " in quoted-field`);
        pos = p + 1;
        if (pos === line.length) {
          fields.push('');
          break;
        }
      } else {
        const comma = line.indexOf(',', pos);
        const value = comma < 0 ? line.slice(pos) : line.slice(pos, comma);
        const bare = value.indexOf('"');
        if (bare >= 0) throw new TokenFileError(`parse error on line ${i}, column ${pos + bare + 1}: bare " in non-quoted-field`);
        fields.push(value);
        if (comma < 0) break;
        pos = comma + 1;
        if (pos === line.length) {
          fields.push('');
          break;
        }
      }
    }
    records.push(fields);
  }
  return records;
}

export interface TokenFileWarnings {
  warn?(message: string): void;
}

/** The tokens of a token file; throws TokenFileError with Kubernetes' wording when it cannot be used. */
export function loadTokenFile(path: string, log: TokenFileWarnings = {}): Map<string, UserInfo> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new TokenFileError(goFileError('open', path, e));
  }
  const tokens = new Map<string, UserInfo>();
  let recordNum = 0;
  for (const record of parseCsv(text)) {
    if (record.length < 3) throw new TokenFileError(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    recordNum++;
    const [token, name, uid] = record as [string, string, string];
    if (token === '') {
      log.warn?.(`empty token has been found in token file '${path}', record number '${recordNum}'`);
      continue;
    }
    if (tokens.has(token)) log.warn?.(`duplicate token has been found in token file '${path}', record number '${recordNum}'`);
    const groups = record.length >= 4 ? (record[3] ?? '').split(',') : [];
    tokens.set(token, { username: name, uid, groups });
  }
  return tokens;
}

export function tokenFileAuthenticator(tokens: ReadonlyMap<string, UserInfo>): TokenAuthenticator {
  return {
    name: 'token-file',
    authenticateToken(token: string): AuthnResponse | undefined {
      const user = tokens.get(token);
      return user ? { user: structuredClone(user) as UserInfo } : undefined;
    },
  };
}

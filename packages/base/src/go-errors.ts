// File errors in Go's words (an *os.PathError), as Kubernetes' components print them at start-up:
// "open /etc/kubernetes/pki/ca.pem: no such file or directory".
const REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
};

/** Go's text for the errno of a failed file operation, else the error's own message. */
export function goErrnoReason(e: unknown): string {
  const code = (e as { code?: string } | undefined)?.code ?? '';
  return REASONS[code] ?? (e instanceof Error ? e.message : String(e));
}

/** `<op> <path>: <reason>`. */
export function goFileError(op: 'open' | 'read', path: string, e: unknown): string {
  return `${op} ${path}: ${goErrnoReason(e)}`;
}

/** What os.ReadFile returns: opening fails with "open …", except a directory, which opens and fails at "read …". */
export function goReadFileError(path: string, e: unknown): string {
  return goFileError((e as { code?: string } | undefined)?.code === 'EISDIR' ? 'read' : 'open', path, e);
}

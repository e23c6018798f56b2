// File errors worded as Go's os package reports them (what kube-apiserver prints at start-up).
const REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
};

export function goFileError(op: 'open' | 'read', path: string, e: unknown): string {
  const code = (e as { code?: string }).code ?? '';
  return `${op} ${path}: ${REASONS[code] ?? (e instanceof Error ? e.message : String(e))}`;
}

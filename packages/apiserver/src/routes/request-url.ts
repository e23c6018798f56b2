// A request-target split into its raw path and its query. The path keeps its "." and ".." segments: WHATWG
// URL parsing would resolve them (".../configmaps/.." becoming the namespace itself, "%2e%2e" included),
// whereas Kubernetes routes on the path as sent and refuses such names in its key function.
export interface RequestUrl {
  pathname: string;
  searchParams: URLSearchParams;
}

/** The authority of an absolute-form target ("http://host:port"), which an origin-form target lacks. */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

export function requestUrl(target: string): RequestUrl {
  let rest = target;
  const abs = ABSOLUTE_FORM.exec(rest);
  if (abs) rest = rest.slice(abs[0].length);
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const q = rest.indexOf('?');
  const pathname = q < 0 ? rest : rest.slice(0, q);
  return { pathname: pathname === '' ? '/' : pathname, searchParams: new URLSearchParams(q < 0 ? '' : rest.slice(q + 1)) };
}

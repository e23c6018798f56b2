// The REST calls in-process tests make (fastify inject): JSON in, status, parsed body and Warning header out; and
// a condition poll for what the server does after answering (a CRD served once its watch event is cached).
import type { ApiServer } from '../server.ts';

/** Test bodies are read field by field; a loose type keeps the assertions short. */
export type Body = Record<string, any>;
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Answer<B = Body> {
  status: number;
  body: B;
  warning: string | undefined;
}

/** A call function bound to the server `get()` returns when it is called (set in beforeAll). */
export function injectClient<B = Body>(get: () => ApiServer) {
  return async (method: Method, url: string, body?: unknown, contentType = 'application/json', accept?: string): Promise<Answer<B>> => {
    const headers: Record<string, string> = { 'content-type': contentType, ...(accept ? { accept } : {}) };
    const r = await get().app.inject({ method, url, headers, ...(body ? { payload: JSON.stringify(body) } : {}) });
    return { status: r.statusCode, body: r.json() as B, warning: r.headers.warning as string | undefined };
  };
}

/** Polls `check` every 10 ms until it holds; throws after `ms`. */
export async function until(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

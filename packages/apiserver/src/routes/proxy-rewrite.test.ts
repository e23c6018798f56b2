import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { pathPrepend, rewriteBody, rewriteHTML, rewritesBody, rewriteURL, type RewriteTarget } from './proxy-rewrite.ts';

const t: RewriteTarget = { pathPrepend: '/api/v1/namespaces/default/services/web/proxy', backendHost: '10.244.1.5:80', requestHost: '127.0.0.1:8001' };

describe('rewriteURL (transport.go rewriteURL)', () => {
  it.each([
    ['/static/app.js', '/api/v1/namespaces/default/services/web/proxy/static/app.js'],
    ['/dir/', '/api/v1/namespaces/default/services/web/proxy/dir/'],
    ['/', '/api/v1/namespaces/default/services/web/proxy/'],
    ['/a/../b?x=1#top', '/api/v1/namespaces/default/services/web/proxy/b?x=1#top'],
    ['http://10.244.1.5:80/login', '/api/v1/namespaces/default/services/web/proxy/login'],
    ['http://127.0.0.1:8001/login', 'http://127.0.0.1:8001/api/v1/namespaces/default/services/web/proxy/login'],
    ['/api/v1/namespaces/default/services/web/proxy/x', '/api/v1/namespaces/default/services/web/proxy/x'],
    ['relative/page.html', 'relative/page.html'],
    ['../up', '../up'],
    ['http://nginx.org/', 'http://nginx.org/'],
    ['//cdn.example.com/x.js', '//cdn.example.com/x.js'],
    ['http://10.244.1.5:80', 'http://10.244.1.5:80'],
    ['mailto:someone@example.com', 'mailto:someone@example.com'],
    ['#anchor', '#anchor'],
  ])('%s → %s', (from, to) => {
    expect(rewriteURL(from, t)).toBe(to);
  });
});

describe('rewriteHTML (transport.go rewriteHTML)', () => {
  it('rewrites URL attributes of the listed tags and prints every start tag as Go does', () => {
    const page =
      '<!DOCTYPE html>\n<HTML><head><LINK REL=stylesheet href=\'/s.css\'><script src="/app.js">if (a<b) location="/x"</script></head>\n' +
      '<body><!-- <a href="/no"> --><a href="/docs/" class=nav>Docs</a> <a href="http://nginx.org/">nginx.org</a><br/>' +
      '<img src="/i.png" alt="a &amp; b" data-src="/keep"><form action="/login" method=post><input type=submit formaction="/go" disabled></form>' +
      '<p title="it\'s">x</p></body></HTML>\n';
    expect(rewriteHTML(page, (u) => rewriteURL(u, t))).toBe(
      '<!DOCTYPE html>\n<html><head><link rel="stylesheet" href="/api/v1/namespaces/default/services/web/proxy/s.css">' +
        '<script src="/api/v1/namespaces/default/services/web/proxy/app.js">if (a<b) location="/x"</script></head>\n' +
        '<body><!-- <a href="/no"> --><a href="/api/v1/namespaces/default/services/web/proxy/docs/" class="nav">Docs</a> <a href="http://nginx.org/">nginx.org</a><br/>' +
        '<img src="/api/v1/namespaces/default/services/web/proxy/i.png" alt="a &amp; b" data-src="/keep">' +
        '<form action="/api/v1/namespaces/default/services/web/proxy/login" method="post"><input type="submit" formaction="/api/v1/namespaces/default/services/web/proxy/go" disabled=""></form>' +
        '<p title="it&#39;s">x</p></body></HTML>\n',
    );
  });

  it('leaves a page without start tags, and text with a stray "<", alone', () => {
    expect(rewriteHTML('a < b and 1<2', (u) => u)).toBe('a < b and 1<2');
    expect(rewriteHTML('<a href="/x"', (u) => `!${u}`)).toBe('<a href="/x"');
  });
});

describe('rewriteBody', () => {
  it('rewrites text/html only, through gzip and deflate', () => {
    expect(rewritesBody({ 'content-type': 'text/html; charset=utf-8' })).toBe(true);
    expect(rewritesBody({ 'content-type': 'text/plain' })).toBe(false);
    expect(rewritesBody({ 'content-type': 'text/html', 'content-encoding': 'br' })).toBe(false);
    const page = '<a href="/x">x</a>';
    const want = '<a href="/api/v1/namespaces/default/services/web/proxy/x">x</a>';
    expect(rewriteBody(Buffer.from(page), undefined, t).toString()).toBe(want);
    expect(zlib.gunzipSync(rewriteBody(zlib.gzipSync(page), 'gzip', t)).toString()).toBe(want);
    expect(zlib.inflateRawSync(rewriteBody(zlib.deflateRawSync(page), 'deflate', t)).toString()).toBe(want);
  });

  it('takes the proxied path off the request path for the prefix', () => {
    expect(pathPrepend('/api/v1/namespaces/default/pods/web/proxy/a/b/', '/a/b/')).toBe('/api/v1/namespaces/default/pods/web/proxy');
    expect(pathPrepend('/api/v1/namespaces/default/pods/web/proxy/', '/')).toBe('/api/v1/namespaces/default/pods/web/proxy');
  });
});

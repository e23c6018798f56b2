// @kemu/metrics-server: kubernetes-sigs/metrics-server as kemu runs it (an aggregated API server for
// metrics.k8s.io/v1beta1). Guarantees: usage is computed from two kubelet scrapes as metrics-server computes it;
// every request is authenticated (front-proxy headers, client certificates, TokenReview) and authorized
// (SubjectAccessReview) as a delegating aggregated server does; answers and errors in metrics-server's words.
export * from './options.ts';
export * from './server.ts';
export * from './resources.ts';
export * from './quantity.ts';

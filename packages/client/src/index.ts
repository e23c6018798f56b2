// @kemu/client: the one client machinery every kemu component uses (controller-manager, scheduler,
// kubelet, kemu). Guarantees:
// - RestClient: typed verbs keyed on the @kemu/api resource table; server errors are StatusError; every
//   request passes a QPS/burst token bucket; retries only where a retry cannot duplicate a write.
// - Workqueues: fair, de-duplicated, never one key on two workers at once; delays and rate limits on an
//   injected Clock.
export * from './config.ts';
export * from './errors.ts';
export * from './ratelimit.ts';
export * from './rest.ts';
export * from './write-fence.ts';
export * from './watch.ts';
export * from './workqueue/queue.ts';
export * from './workqueue/delaying.ts';
export * from './workqueue/ratelimiter.ts';
export * from './workqueue/ratelimiting.ts';
// - Informers: list (paged, consistent) then watch from the list's resourceVersion; resume from the last
//   seen version on a dropped or dead stream, re-list on 410; handlers see add/update/delete in cache order,
//   with DeletedFinalStateUnknown for deletes missed across a re-list. The cache is read-only.
export * from './store.ts';
export * from './indexer.ts';
export * from './listwatch.ts';
export * from './reflector.ts';
export * from './informer.ts';
export * from './factory.ts';
// - EventRecorder: asynchronous, aggregated (count/lastTimestamp) core/v1 Events; never throws.
// - LeaderElector: client-go semantics on a Lease (take over only after a full lease duration without
//   change on the local clock; give up after renewDeadline; optional release on cancel).
// - leaderElectedRun: a component's work only while leading; a lost Lease exits 1, SIGTERM releases it when asked.
// - Fencing (kemu): a leader's clients start no write past its renew deadline, abort writes in flight when
//   the Lease is lost, and name the Lease term in X-Kemu-Lease so the apiserver refuses a deposed leader.
export * from './events.ts';
export * from './leaderelection/leaselock.ts';
export * from './leaderelection/leaderelection.ts';
export * from './leaderelection/flags.ts';
export * from './leaderelection/watchdog.ts';
export * from './leaderelection/fence.ts';
export * from './leaderelection/run.ts';
// - Secure serving: a component's HTTPS health/metrics port with Kubernetes' delegated authentication
//   (request headers, client certificates, TokenReview) and authorization (SubjectAccessReview), and its flags.
export * from './serving/flags.ts';
export * from './serving/authn.ts';
export * from './serving/authz.ts';
export * from './serving/guard.ts';
export * from './serving/serving-cert.ts';
export * from './serving/secure-serving.ts';
export * from './serving/kubelet-serving.ts';

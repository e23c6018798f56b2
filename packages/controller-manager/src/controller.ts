// The contract every controller plugs into: a descriptor in the one registry list creates a Controller from
// the shared context; run() does its work until ctx.signal aborts (leadership lost or process stopping).
import type { RestClient, SharedInformerFactory, EventRecorder } from '@kemu/client';
import type { Clock, Logger } from '@kemu/base';
import type { ControllerManagerOptions } from './options.ts';

export interface ControllerContext {
  /** The controller's REST client (QPS/burst from --kube-api-qps/--kube-api-burst): the manager's own, or with
   * --use-service-account-credentials one authenticating as the descriptor's ServiceAccount. */
  client: RestClient;
  /** Shared informers: controllers ask for what they need in create(); the manager starts them all. */
  informers: SharedInformerFactory;
  recorder: EventRecorder;
  clock: Clock;
  logger: Logger;
  options: ControllerManagerOptions;
  /** Aborts when leadership is lost or the process stops: every loop must return promptly. */
  signal: AbortSignal;
}

export interface Controller {
  name: string;
  /** Resolves once ctx.signal has aborted and the controller's workers have stopped. */
  run(ctx: ControllerContext): Promise<void>;
}

export interface ControllerDescriptor {
  /** Canonical name, as Kubernetes 1.31 spells it ("replicaset-controller"). */
  name: string;
  /** Older names --controllers also accepts ("replicaset"). */
  aliases?: readonly string[];
  /** The kube-system ServiceAccount it runs as with --use-service-account-credentials (Kubernetes' client
   * name; its bootstrap ClusterRole is system:controller:<serviceAccountName>). */
  serviceAccountName: string;
  enabledByDefault: boolean;
  /** The source component of its Events when Kubernetes names it otherwise than the controller
   * ("horizontal-pod-autoscaler"); default: the name. */
  eventComponent?: string;
  /** Runs with the manager's own client even under --use-service-account-credentials (Kubernetes'
   * tokens-controller, which must work before any ServiceAccount token does). */
  rootClient?: boolean;
  /** Called before informers start, so that informers it asks for are part of the initial sync. Undefined: the
   * controller does not start (Kubernetes' starters returning enabled=false, e.g. a missing key file). */
  create(ctx: ControllerContext): Controller | undefined;
}

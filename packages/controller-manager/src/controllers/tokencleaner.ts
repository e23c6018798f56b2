// token-cleaner-controller (off by default): deletes bootstrap token Secrets in kube-system once their `expiration`
// (RFC 3339; unparseable = expired) has passed, with a UID precondition; one not yet expired is looked at again
// when it expires.
import { BOOTSTRAP_TOKEN_SECRET_TYPE, R, bootstrapTokenExpiration, type Secret } from '@kemu/api';
import { isConflict, isNotFound, metaKey, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';

const SYSTEM = 'kube-system';

export class TokenCleanerController implements Controller {
  readonly name = 'token-cleaner-controller';
  private readonly secrets: SharedInformer<Secret>;
  private readonly worker: KeyedWorker;

  constructor(private readonly ctx: ControllerContext) {
    this.secrets = ctx.informers.informerFor<Secret>(R.secrets);
    this.worker = new KeyedWorker(ctx, { name: 'token_cleaner', workers: 1, sync: (k) => this.sync(k) }).waitFor(this.secrets);
    const enqueue = (s: Secret) => {
      if (s.metadata.namespace === SYSTEM && s.type === BOOTSTRAP_TOKEN_SECRET_TYPE) this.worker.add(metaKey(s));
    };
    this.secrets.addEventHandler({ onAdd: enqueue, onUpdate: (_o, s) => enqueue(s) });
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  private async sync(key: string): Promise<void> {
    const secret = this.secrets.store.get(key);
    if (!secret || secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return;
    const { expired, remainingMs } = bootstrapTokenExpiration(secret, this.ctx.clock.now());
    if (!expired) {
      if (remainingMs > 0) this.worker.addAfter(key, remainingMs);
      return;
    }
    const { namespace, name, uid } = secret.metadata;
    this.ctx.logger.debug({ secret: key }, 'Deleting expired secret');
    try {
      await this.ctx.client.delete(R.secrets, namespace, name ?? '', uid ? { preconditions: { uid } } : undefined);
    } catch (e) {
      // Already gone, or replaced by a new Secret of the same name (the UID precondition failed).
      if (isNotFound(e) || isConflict(e)) return;
      throw e;
    }
  }
}

export const tokenCleanerDescriptor: ControllerDescriptor = {
  name: 'token-cleaner-controller',
  aliases: ['tokencleaner'],
  serviceAccountName: 'token-cleaner',
  enabledByDefault: false,
  create: (ctx) => new TokenCleanerController(ctx),
};

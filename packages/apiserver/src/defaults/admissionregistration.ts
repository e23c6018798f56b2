// Defaulting for webhook configurations (pkg/apis/admissionregistration/v1/defaults.go): failurePolicy Fail,
// matchPolicy Equivalent, empty selectors, timeoutSeconds 10, rule scope '*', service port 443, and for
// mutating webhooks reinvocationPolicy Never.
import { isObj, objects, setDefault } from './util.ts';
import type { Obj } from './util.ts';

export function defaultWebhookConfiguration(o: Obj, mutating: boolean): void {
  for (const hook of objects(o.webhooks)) {
    setDefault(hook, 'failurePolicy', 'Fail');
    setDefault(hook, 'matchPolicy', 'Equivalent');
    setDefault(hook, 'namespaceSelector', {});
    setDefault(hook, 'objectSelector', {});
    setDefault(hook, 'timeoutSeconds', 10);
    if (mutating) setDefault(hook, 'reinvocationPolicy', 'Never');
    for (const rule of objects(hook.rules)) setDefault(rule, 'scope', '*');
    const cc = isObj(hook.clientConfig) ? hook.clientConfig : undefined;
    if (cc && isObj(cc.service)) setDefault(cc.service, 'port', 443);
  }
}

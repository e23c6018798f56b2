// events, in both groups: core/v1 (involvedObject, type Normal|Warning) and events.k8s.io/v1 (which
// requires eventTime, reportingController, reportingInstance, action and reason on create, and lets only
// metadata and series change on update). Both are one storage: events.k8s.io/v1 is a view of /registry/events
// (storage-views.ts).
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { validateCoreEvent, validateEventsV1Event, validateEventsV1EventUpdate } from '../validation/misc.ts';

export const eventStrategy = buildStrategy(R.events, { validate: validateCoreEvent });
export const eventsV1Strategy = buildStrategy(R.eventsV1, { validate: validateEventsV1Event, validateUpdate: validateEventsV1EventUpdate });

// discovery.k8s.io/v1 EndpointSlice and events.k8s.io/v1 Event (field numbers from their generated.proto, at
// Kubernetes 1.31: no EndpointHints.forNodes). Their own packages, so names such as EndpointPort repeat core's.
import { boolPtr, i32, i32Ptr, list, mapOf, msg, str, strPtr, strs, struct } from '../build.ts';
import { ObjectReference } from './core.ts';
import { EventSource } from './core-endpoints-events.ts';
import { MicroTime, ObjectMeta, Time } from './meta.ts';

export const EndpointConditions = struct('', '', { 1: boolPtr('ready'), 2: boolPtr('serving'), 3: boolPtr('terminating') });
export const ForZone = struct('', '', { 1: str('name') });
export const EndpointHints = struct('', '', { 1: list('forZones', () => ForZone) });
export const Endpoint = struct('', '', {
  1: strs('addresses'),
  2: msg('conditions', () => EndpointConditions),
  3: strPtr('hostname'),
  4: msg('targetRef', () => ObjectReference),
  5: mapOf('deprecatedTopology', 'string'),
  6: strPtr('nodeName'),
  7: strPtr('zone'),
  8: msg('hints', () => EndpointHints),
});
export const EndpointPort = struct('', '', { 1: strPtr('name'), 2: strPtr('protocol'), 3: i32Ptr('port'), 4: strPtr('appProtocol') });
export const EndpointSlice = struct('', '', {
  1: msg('metadata', () => ObjectMeta),
  4: str('addressType'),
  2: list('endpoints', () => Endpoint),
  3: list('ports', () => EndpointPort),
});

export const EventSeries = struct('', '', { 1: i32('count'), 2: msg('lastObservedTime', () => MicroTime) });
export const Event = struct('', '', {
  1: msg('metadata', () => ObjectMeta),
  2: msg('eventTime', () => MicroTime),
  3: msg('series', () => EventSeries),
  4: str('reportingController'),
  5: str('reportingInstance'),
  6: str('action'),
  7: str('reason'),
  8: msg('regarding', () => ObjectReference),
  9: msg('related', () => ObjectReference),
  10: str('note'),
  11: str('type'),
  12: msg('deprecatedSource', () => EventSource),
  13: msg('deprecatedFirstTimestamp', () => Time),
  14: msg('deprecatedLastTimestamp', () => Time),
  15: i32('deprecatedCount'),
});

// core/v1 Endpoints and Event (field numbers from k8s.io/api core/v1 generated.proto). Controllers and kubelets
// write them in JSON; the tables serve field validation and protobuf bodies alike.
import { i32, list, msg, str, strPtr, struct } from '../build.ts';
import { ObjectReference } from './core.ts';
import { MicroTime, ObjectMeta, Time } from './meta.ts';

export const EndpointAddress = struct('', '', { 1: str('ip'), 3: str('hostname'), 4: strPtr('nodeName'), 2: msg('targetRef', () => ObjectReference) });
export const EndpointPort = struct('', '', { 1: str('name'), 2: i32('port'), 3: str('protocol'), 4: strPtr('appProtocol') });
export const EndpointSubset = struct('', '', {
  1: list('addresses', () => EndpointAddress),
  2: list('notReadyAddresses', () => EndpointAddress),
  3: list('ports', () => EndpointPort),
});
export const Endpoints = struct('', '', { 1: msg('metadata', () => ObjectMeta), 2: list('subsets', () => EndpointSubset) });

export const EventSource = struct('', '', { 1: str('component'), 2: str('host') });
export const EventSeries = struct('', '', { 1: i32('count'), 2: msg('lastObservedTime', () => MicroTime) });
export const Event = struct('', '', {
  1: msg('metadata', () => ObjectMeta),
  2: msg('involvedObject', () => ObjectReference),
  3: str('reason'),
  4: str('message'),
  5: msg('source', () => EventSource),
  6: msg('firstTimestamp', () => Time),
  7: msg('lastTimestamp', () => Time),
  8: i32('count'),
  9: str('type'),
  10: msg('eventTime', () => MicroTime),
  11: msg('series', () => EventSeries),
  12: str('action'),
  13: msg('related', () => ObjectReference),
  14: str('reportingComponent'),
  15: str('reportingInstance'),
});

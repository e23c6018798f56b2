// discovery.k8s.io/v1 EndpointSlice and events.k8s.io/v1 Event (field numbers from their generated.proto, at
// Kubernetes 1.31: no EndpointHints.forNodes; list semantics from their types.go tags). Their own packages, so
// const names such as EndpointPort, EventSeries and Event repeat core's for different definitions.
import { boolPtr, i32, i32Ptr, list, mapOf, msg, setList, str, strPtr, strs, struct } from '../build.ts';
import { ObjectReference } from './core.ts';
import { EventSource } from './core-endpoints-events.ts';
import { MicroTime, ObjectMeta, Time } from './meta.ts';

const DISCOVERY = 'io.k8s.api.discovery.v1.';
const EVENTS = 'io.k8s.api.events.v1.';

export const EndpointConditions = struct(`${DISCOVERY}EndpointConditions`, 'The current condition of an endpoint.', {
  1: boolPtr('ready', 'Whether the endpoint takes traffic; unset means unknown, usually read as ready. False when terminating.'),
  2: boolPtr('serving', 'Like ready, but also set while the endpoint is terminating.'),
  3: boolPtr('terminating', 'Whether the endpoint is shutting down; unset means not terminating.'),
});
export const ForZone = struct(`${DISCOVERY}ForZone`, 'A zone that should consume an endpoint.', { 1: str('name', 'Name of the zone.') });
export const EndpointHints = struct(`${DISCOVERY}EndpointHints`, 'Hints on how an endpoint should be consumed.', {
  1: list('forZones', () => ForZone, 'Zones whose clients should use this endpoint (topology aware routing).'),
});
export const Endpoint = struct(`${DISCOVERY}Endpoint`, 'One backend of a service.', {
  1: strs('addresses', "Addresses of the endpoint, 1 to 100, of the slice's addressType.", setList()),
  2: msg('conditions', () => EndpointConditions, 'Whether the endpoint is ready, serving or terminating.'),
  3: strPtr('hostname', 'Hostname of the endpoint, used in DNS names; a lowercase DNS label.'),
  4: msg('targetRef', () => ObjectReference, 'The object behind the endpoint, usually a pod.'),
  5: mapOf('deprecatedTopology', 'string', 'Deprecated topology labels from v1beta1; ignored when written through v1.'),
  6: strPtr('nodeName', 'Node that hosts the endpoint.'),
  7: strPtr('zone', 'Zone the endpoint is in.'),
  8: msg('hints', () => EndpointHints, 'Hints on how the endpoint should be consumed.'),
});
export const EndpointPort = struct(`${DISCOVERY}EndpointPort`, 'One port of the endpoints in a slice.', {
  1: strPtr('name', "Name of the port, unique in the slice; the service port's name. Defaults to empty."),
  2: strPtr('protocol', 'TCP, UDP or SCTP; defaults to TCP.'),
  3: i32Ptr('port', 'Port number; unset means all ports.'),
  4: strPtr('appProtocol', 'Application protocol of the port, such as http.'),
});
export const EndpointSlice = struct(`${DISCOVERY}EndpointSlice`, "A slice of a service's endpoints: addresses of one type, their conditions and ports.", {
  1: msg('metadata', () => ObjectMeta, 'Standard object metadata; the kubernetes.io/service-name label names the service.'),
  4: str('addressType', 'IPv4, IPv6 or FQDN: the type of every address in the slice; cannot be changed.'),
  2: list('endpoints', () => Endpoint, 'The endpoints, at most 1000.'),
  3: list('ports', () => EndpointPort, 'Ports every endpoint serves, at most 100; empty means none are defined.'),
});

export const EventSeries = struct(`${EVENTS}EventSeries`, 'A run of repeated occurrences of an event.', {
  1: i32('count', 'Number of occurrences up to the last heartbeat.'),
  2: msg('lastObservedTime', () => MicroTime, 'When the last occurrence was seen before the last heartbeat.'),
});
export const Event = struct(`${EVENTS}Event`, 'A report of something that happened to an object (the events.k8s.io form of the core Event).', {
  1: msg('metadata', () => ObjectMeta, 'Standard object metadata: name, namespace, labels, annotations.'),
  2: msg('eventTime', () => MicroTime, 'When the event was first observed; required.'),
  3: msg('series', () => EventSeries, 'The run of occurrences this event stands for; unset for a single event.'),
  4: str('reportingController', 'Name of the controller that emitted the event, such as kubernetes.io/kubelet.'),
  5: str('reportingInstance', 'ID of the controller instance, such as kubelet-node1; at most 128 characters.'),
  6: str('action', 'What was done, or failed, to the object, such as Binding; at most 128 characters.'),
  7: str('reason', 'Why the action was taken, such as Scheduled; at most 128 characters.'),
  8: msg('regarding', () => ObjectReference, 'The object the event is about.'),
  9: msg('related', () => ObjectReference, 'A second object involved, such as one the action created or deleted.'),
  10: str('note', 'Human-readable description of what happened, at most 1 kB.'),
  11: str('type', 'Normal or Warning.'),
  12: msg('deprecatedSource', () => EventSource, 'Deprecated: the core Event source, kept for compatibility.'),
  13: msg('deprecatedFirstTimestamp', () => Time, 'Deprecated: the core Event firstTimestamp, kept for compatibility.'),
  14: msg('deprecatedLastTimestamp', () => Time, 'Deprecated: the core Event lastTimestamp, kept for compatibility.'),
  15: i32('deprecatedCount', 'Deprecated: the core Event count, kept for compatibility.'),
});

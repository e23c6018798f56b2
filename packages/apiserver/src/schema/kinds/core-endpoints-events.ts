// core/v1 Endpoints and Event (field numbers from k8s.io/api core/v1 generated.proto; list semantics from its
// types.go tags). Controllers and kubelets write them in JSON; the schema serves field validation and protobuf
// bodies alike. events.k8s.io/v1 Event, a different definition, is in discovery-events.ts.
import { i32, list, msg, str, strPtr, struct } from '../build.ts';
import { ObjectReference } from './core.ts';
import { MicroTime, ObjectMeta, Time } from './meta.ts';

const CORE = 'io.k8s.api.core.v1.';
const metadata = msg('metadata', () => ObjectMeta, 'Standard object metadata: name, namespace, labels, annotations, owners.');

export const EndpointAddress = struct(
  `${CORE}EndpointAddress`,
  'One address of an endpoint of a service.',
  {
    1: str('ip', 'IP address of the endpoint; not a loopback, link-local or multicast address.'),
    3: str('hostname', 'Hostname of the endpoint, used for its DNS record.'),
    4: strPtr('nodeName', 'Node that hosts the endpoint.'),
    2: msg('targetRef', () => ObjectReference, 'The object behind the endpoint, usually a pod.'),
  },
  { atomic: true },
);
export const EndpointPort = struct(
  `${CORE}EndpointPort`,
  'One port of the endpoints in a subset.',
  {
    1: str('name', "Name of the port, matching the service port's name; optional when there is only one port."),
    2: i32('port', 'Port number.'),
    3: str('protocol', 'TCP, UDP or SCTP; defaults to TCP.'),
    4: strPtr('appProtocol', 'Application protocol of the port, such as http.'),
  },
  { atomic: true },
);
export const EndpointSubset = struct(`${CORE}EndpointSubset`, 'A group of addresses that share the same ports.', {
  1: list('addresses', () => EndpointAddress, 'Addresses of endpoints that are ready to serve.'),
  2: list('notReadyAddresses', () => EndpointAddress, 'Addresses of endpoints that are not ready yet (or are terminating).'),
  3: list('ports', () => EndpointPort, 'Ports every address in the subset serves.'),
});
export const Endpoints = struct(`${CORE}Endpoints`, 'The addresses and ports behind a service, in subsets; deprecated in favour of EndpointSlice.', {
  1: metadata,
  2: list('subsets', () => EndpointSubset, 'Groups of addresses with the ports they serve.'),
});

export const EventSource = struct(`${CORE}EventSource`, 'Which component, on which host, reported an event.', {
  1: str('component', 'Component that reported the event, such as kubelet or default-scheduler.'),
  2: str('host', 'Node the reporting component runs on.'),
});
export const EventSeries = struct(`${CORE}EventSeries`, 'A run of repeated occurrences of an event.', {
  1: i32('count', 'Number of occurrences up to the last heartbeat.'),
  2: msg('lastObservedTime', () => MicroTime, 'When the last occurrence was seen before the last heartbeat.'),
});
export const Event = struct(`${CORE}Event`, 'A report of something that happened to an object, such as a pod being scheduled or failing.', {
  1: metadata,
  2: msg('involvedObject', () => ObjectReference, 'The object the event is about.'),
  3: str('reason', 'Short, CamelCase, machine-readable reason, such as Scheduled or BackOff.'),
  4: str('message', 'Human-readable description of what happened.'),
  5: msg('source', () => EventSource, 'Component and host that reported the event.'),
  6: msg('firstTimestamp', () => Time, 'When the event was first recorded.'),
  7: msg('lastTimestamp', () => Time, 'When the event was most recently recorded.'),
  8: i32('count', 'How many times the event has occurred.'),
  9: str('type', 'Normal or Warning.'),
  10: msg('eventTime', () => MicroTime, 'When the event was first observed, with microseconds.'),
  11: msg('series', () => EventSeries, 'The run of occurrences this event stands for; unset for a single event.'),
  12: str('action', 'What was done, or failed, to the object, such as Binding or Pulling.'),
  13: msg('related', () => ObjectReference, 'A second object involved, such as the node a pod was bound to.'),
  14: str('reportingComponent', 'Name of the controller that emitted the event, such as kubernetes.io/kubelet.'),
  15: str('reportingInstance', 'ID of the controller instance, such as kubelet-node1.'),
});

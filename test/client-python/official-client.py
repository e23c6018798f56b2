"""The official Kubernetes Python client against kemu: list, create, patch, a 409, and a watch stream.

Usage: official-client.py KUBECONFIG NAMESPACE. Prints one JSON object with what the client saw.
"""
import json
import sys

from kubernetes import client, config, watch


def main() -> None:
    kubeconfig, namespace = sys.argv[1], sys.argv[2]
    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()
    out = {}

    namespaces = core.list_namespace()
    out["namespaces"] = sorted(n.metadata.name for n in namespaces.items)

    listed = core.list_namespaced_config_map(namespace)
    since = listed.metadata.resource_version

    created = core.create_namespaced_config_map(
        namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-a"), data={"a": "1"})
    )
    out["created"] = {"name": created.metadata.name, "data": created.data, "uid": bool(created.metadata.uid)}

    # This client version sends every patch as application/json-patch+json.
    patched = core.patch_namespaced_config_map("py-a", namespace, [{"op": "add", "path": "/data/b", "value": "2"}])
    out["patched"] = patched.data

    try:
        core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-a")))
        out["conflict"] = None
    except client.rest.ApiException as e:
        body = json.loads(e.body)
        out["conflict"] = {"status": e.status, "reason": body.get("reason"), "message": body.get("message"), "details": body.get("details")}

    # The watch sends watch=True; it replays what happened since the list, then the stream is stopped.
    events = []
    w = watch.Watch()
    for ev in w.stream(core.list_namespaced_config_map, namespace, resource_version=since, timeout_seconds=20):
        events.append([ev["type"], ev["object"].metadata.name, dict(ev["object"].data or {})])
        if len(events) == 2:
            w.stop()
    out["events"] = events

    core.delete_namespaced_config_map("py-a", namespace)
    out["after_delete"] = [c.metadata.name for c in core.list_namespaced_config_map(namespace).items]
    print(json.dumps(out))


if __name__ == "__main__":
    main()

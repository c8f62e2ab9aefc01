#!/usr/bin/env bash
# Demo: builds the executables, makes a throwaway "node" network namespace and a pod
# namespace, and runs the Kubernetes-style pod network (conf-examples/bridge-dualstack:
# bridge + host-local, dual-stack, ipMasq) plus loopback through them the way a container
# runtime does. Shows the pod's addresses, a request served from the pod, then cleans up.
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$(id -u)" -eq 0 ] || { echo "the demo creates network namespaces: run it as root" >&2; exit 1; }
npm run --silent build >/dev/null

node_ns="cnits-demo-node-$$"
pod_ns="cnits-demo-pod-$$"
work=$(mktemp -d)
pod_pid=""
cleanup() {
  [ -n "$pod_pid" ] && kill "$pod_pid" 2>/dev/null || true
  ip netns del "$pod_ns" 2>/dev/null || true
  ip netns del "$node_ns" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$node_ns"
ip netns add "$pod_ns"
ip -n "$node_ns" link set lo up

# The example as a runtime would find it in /etc/cni/net.d, with host-local's state kept in
# the demo's temp dir instead of /var/lib/cni/networks.
node -e '
const [src, dst, dataDir] = process.argv.slice(1);
const list = JSON.parse(require("fs").readFileSync(src, "utf8"));
for (const p of list.plugins) if (p.ipam && p.ipam.type === "host-local") p.ipam.dataDir = dataDir;
require("fs").writeFileSync(dst, JSON.stringify(list, null, 2));
' conf-examples/bridge-dualstack.conflist "$work/k8s.conflist" "$work/ipam"

# cni-run plays the runtime; it runs inside the node netns, and so do the plugins it executes.
run() {
  ip netns exec "$node_ns" node --import tsx tools/cni-run.ts "$1" "$2" "/run/netns/$pod_ns" \
    --cni-path "$PWD/dist/bin" --cache-dir "$work/cache" --container-id demo-pod-1 "${@:3}"
}

echo "== ADD loopback, then the pod network (dist/bin/bridge + host-local)"
run add conf-examples/loopback.conflist --ifname lo >/dev/null
run add "$work/k8s.conflist" > "$work/result.json"
cat "$work/result.json"
echo
echo "== pod $pod_ns"
ip -n "$pod_ns" -brief addr show eth0
ip -n "$pod_ns" route show default
echo "== node $node_ns: bridge cbr0"
ip -n "$node_ns" -brief addr show cbr0

pod_ip=$(node -e 'const r = require(process.argv[1]); console.log(r.ips.find((i) => !i.address.includes(":")).address.split("/")[0])' "$work/result.json")
echo
echo "== a request from the node to the pod at $pod_ip:8080"
ip netns exec "$pod_ns" node -e '
require("http").createServer((req, res) => res.end(`hello from the pod, you are ${req.socket.remoteAddress}\n`)).listen(8080, "0.0.0.0");
' &
pod_pid=$!
ip netns exec "$node_ns" node -e '
const [ip] = process.argv.slice(1);
const get = (n) => require("http").get(`http://${ip}:8080/`, (res) => res.pipe(process.stdout))
  .on("error", (e) => (n > 0 ? setTimeout(() => get(n - 1), 100) : (console.error(e.message), process.exit(1))));
get(30);
' "$pod_ip"

echo
echo "== CHECK"
run check "$work/k8s.conflist" && echo "ok"
echo "== DEL"
run del "$work/k8s.conflist" && echo "ok"
run del conf-examples/loopback.conflist --ifname lo && echo "ok"
echo "== pod links after DEL"
ip -n "$pod_ns" -brief link show

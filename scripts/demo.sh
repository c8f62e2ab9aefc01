#!/usr/bin/env bash
# Demo: a Kubernetes node's pod network through our executables, the way a runtime runs it.
#
#   client netns ──uplink── [ node netns: cni0 bridge, hostPort rules, shaping ] ──veth── pods
#
# It builds dist/bin, makes throwaway network namespaces, runs conf-examples/k8s-node.conflist
# (bridge + host-local → portmap → bandwidth) for two pods with cni-run (our libcni-like
# runtime), and shows: the pods' IPs, an HTTP request from outside the node served by a pod
# through a hostPort, and the shaped pod's throughput beside an unshaped one, measured with
# iperf3. Then CHECK and DEL, and what is left (nothing). Every step prints ✓ or ✗; the exit
# status is non-zero when any step failed. Traffic stays inside the demo's namespaces.
set -uo pipefail
cd "$(dirname "$0")/.."

[ "$(id -u)" -eq 0 ] || { echo "the demo creates network namespaces: run it as root" >&2; exit 1; }
# iproute2, iperf3, iptables/nftables: installed when missing, as `npm test` does.
bash scripts/prereqs.sh --packages || { echo "demo: a Debian package it needs is missing (named above)" >&2; exit 1; }

failed=0
ok() { printf '  \342\234\223 %s\n' "$*"; }
bad() { printf '  \342\234\227 %s\n' "$*"; failed=1; }
# step "what" command…: runs it, prints ✓/✗ with the line, shows the output of a failure.
step() {
  local what=$1 out
  shift
  if out=$("$@" 2>&1); then ok "$what"; else bad "$what"; printf '%s\n' "$out" | sed 's/^/      /'; fi
}

echo "== build"
step "npm run build (dist/bin)" npm run --silent build

tag=$$
node_ns="cnits-demo-node-$tag"
client_ns="cnits-demo-client-$tag"
shaped_ns="cnits-demo-shaped-$tag"
plain_ns="cnits-demo-plain-$tag"
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for ns in "$shaped_ns" "$plain_ns" "$client_ns" "$node_ns"; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "== node and client namespaces"
setup_namespaces() {
  for ns in "$node_ns" "$client_ns" "$shaped_ns" "$plain_ns"; do ip netns add "$ns" || return 1; done
  ip -n "$node_ns" link set lo up &&
    ip -n "$client_ns" link set lo up &&
    ip -n "$node_ns" link add uplink0 type veth peer name eth0 netns "$client_ns" &&
    ip -n "$node_ns" addr add 192.0.2.1/24 dev uplink0 &&
    ip -n "$client_ns" addr add 192.0.2.2/24 dev eth0 &&
    ip -n "$node_ns" link set uplink0 up &&
    ip -n "$client_ns" link set eth0 up
}
step "node $node_ns (192.0.2.1) and client $client_ns (192.0.2.2) joined by a veth" setup_namespaces

# The example as a runtime finds it in /etc/cni/net.d, with host-local's state in a temp dir.
node -e '
const fs = require("fs");
const [src, dst, dataDir] = process.argv.slice(1);
const list = JSON.parse(fs.readFileSync(src, "utf8"));
for (const p of list.plugins) if (p.ipam && p.ipam.type === "host-local") p.ipam.dataDir = dataDir;
fs.writeFileSync(dst, JSON.stringify(list, null, 2));
' conf-examples/k8s-node.conflist "$work/k8s.conflist" "$work/ipam"

# cni-run plays the runtime inside the node netns; so do the plugins it executes.
cni() { # cni VERB POD_NS CONFLIST [cni-run options…]
  ip netns exec "$node_ns" dist/bin/cni-run "$1" "$3" "/run/netns/$2" \
    --plugin-dir "$PWD/dist/bin" --cache-dir "$work/cache" --container-id "demo-$2" "${@:4}"
}
# What kubelet and containerd pass for hostPort 8080 and the annotations
# kubernetes.io/ingress-bandwidth=10M, kubernetes.io/egress-bandwidth=10M.
shaped_caps='{"portMappings":[{"hostPort":8080,"containerPort":80,"protocol":"tcp"}],
  "bandwidth":{"ingressRate":10000000,"ingressBurst":4294967295,"egressRate":10000000,"egressBurst":4294967295}}'

echo "== ADD (loopback, then bridge + host-local → portmap → bandwidth)"
for pod in "$shaped_ns" "$plain_ns"; do
  step "loopback in $pod" cni add "$pod" conf-examples/loopback.conflist --ifname lo
done
add_net() { cni add "$1" "$work/k8s.conflist" "${@:3}" > "$2"; } # add_net POD RESULT_FILE [options…]
step "pod network for $shaped_ns: hostPort 8080→80, 10 Mbit/s each way" add_net "$shaped_ns" "$work/shaped.json" --cap-args "$shaped_caps"
step "pod network for $plain_ns: no hostPort, no shaping" add_net "$plain_ns" "$work/plain.json"

pod_ip() { node -e 'const r = require(process.argv[1]); console.log(r.ips[0].address.split("/")[0])' "$1" 2>/dev/null; }
shaped_ip=$(pod_ip "$work/shaped.json")
plain_ip=$(pod_ip "$work/plain.json")
echo "== pods"
for pod in "$shaped_ns" "$plain_ns"; do ip -n "$pod" -brief addr show eth0 | sed 's/^/  '"$pod"': /'; done
[ -n "$shaped_ip" ] && [ -n "$plain_ip" ] && ok "pod IPs $shaped_ip (shaped) and $plain_ip" || bad "pod IPs from the ADD results"
if [ -f "$work/shaped.json" ]; then
  ifb=$(node -e 'const r = require(process.argv[1]); console.log(r.interfaces.filter((i) => i.name.startsWith("bwp")).map((i) => i.name).join(" "))' "$work/shaped.json")
  [ -n "$ifb" ] && ok "the result lists the egress ifb $ifb" || bad "the result lists an egress ifb"
fi

echo "== hostPort: http://192.0.2.1:8080 from the client, served by the pod on port 80"
ip netns exec "$shaped_ns" node -e '
require("http").createServer((req, res) => res.end(`hello from the pod ${process.argv[1]}, you are ${req.socket.remoteAddress}\n`))
  .listen(80, "0.0.0.0");
' "$shaped_ip" &
pids+=($!)
fetch() { # fetch NETNS URL: GET with retries while the server starts
  ip netns exec "$1" node -e '
const get = (n) => require("http").get(process.argv[1], { timeout: 2000 }, (res) => res.pipe(process.stdout))
  .on("error", (e) => (n > 0 ? setTimeout(() => get(n - 1), 100) : (console.error(e.message), process.exit(1))));
get(30);
' "$2"
}
if answer=$(fetch "$client_ns" http://192.0.2.1:8080/); then
  ok "client → node:8080 → pod: $answer"
else
  bad "client → node:8080 → pod: $answer"
fi

echo "== shaping: iperf3 from the node, 3 s each"
for pod in "$shaped_ns" "$plain_ns"; do
  ip netns exec "$pod" iperf3 -s -p 5201 >/dev/null 2>&1 &
  pids+=($!)
done
mbits() { # mbits POD_IP [-R]: Mbit/s received in a 3 s TCP run from the node
  local out
  out=$(timeout 20 ip netns exec "$node_ns" iperf3 -c "$1" -p 5201 -t 3 -J "${@:2}" 2>/dev/null) || return 1
  printf '%s' "$out" | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () =>
    console.log((JSON.parse(s).end.sum_received.bits_per_second / 1e6).toFixed(1)))'
}
measure() { # measure POD_IP [-R]: retries while the server starts
  local i v
  for i in 1 2 3 4 5 6 7 8 9 10; do v=$(mbits "$@") && { echo "$v"; return 0; }; sleep 0.3; done
  return 1
}
in_shaped=$(measure "$shaped_ip"); out_shaped=$(measure "$shaped_ip" -R)
in_plain=$(measure "$plain_ip"); out_plain=$(measure "$plain_ip" -R)
within() { node -e 'const [v, lo, hi] = process.argv.slice(1).map(Number); process.exit(v >= lo && v <= hi ? 0 : 1)' "$@"; }
report() { # report what VALUE LO HI
  if [ -n "$2" ] && within "$2" "$3" "$4"; then ok "$1: $2 Mbit/s"; else bad "$1: ${2:-no measurement} Mbit/s (expected $3–$4)"; fi
}
report "into the shaped pod (ingress, 10M annotation)" "$in_shaped" 9 11
report "out of the shaped pod (egress, 10M annotation)" "$out_shaped" 9 11
report "into the unshaped pod" "$in_plain" 100 1000000
report "out of the unshaped pod" "$out_plain" 100 1000000

echo "== CHECK and DEL"
step "CHECK $shaped_ns" cni check "$shaped_ns" "$work/k8s.conflist" --cap-args "$shaped_caps"
step "CHECK $plain_ns" cni check "$plain_ns" "$work/k8s.conflist"
step "DEL $shaped_ns" cni del "$shaped_ns" "$work/k8s.conflist" --cap-args "$shaped_caps"
step "DEL $plain_ns" cni del "$plain_ns" "$work/k8s.conflist"
for pod in "$shaped_ns" "$plain_ns"; do
  step "DEL loopback in $pod" cni del "$pod" conf-examples/loopback.conflist --ifname lo
done

echo "== what is left on the node"
left_links=$(ip -n "$node_ns" -o link show | grep -E 'veth|bwp' || true)
[ -z "$left_links" ] && ok "no pod veth, no ifb" || bad "links left: $left_links"
left_rules=$( { ip netns exec "$node_ns" iptables-save -t nat 2>/dev/null | grep -E '^-A CNI-(DN|HOSTPORT-DNAT) |^-A CNI-[0-9a-f]{24}' ;
  ip netns exec "$node_ns" nft list ruleset 2>/dev/null | grep -E 'demo-' ; } || true)
[ -z "$left_rules" ] && ok "no per-pod hostPort or masquerade rules" || bad "rules left: $left_rules"
left_ips=$(find "$work/ipam" -type f ! -name lock ! -name 'last_reserved_ip*' 2>/dev/null)
[ -z "$left_ips" ] && ok "no allocated address" || bad "addresses left: $left_ips"

echo
if [ "$failed" -eq 0 ]; then echo "demo: every step passed"; else echo "demo: some steps failed"; fi
exit "$failed"
